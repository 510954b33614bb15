import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { SIPClusterServices } from '../api/services.js';
import { parseBmcAddress } from '../hostdata/bmc-address.js';
import type { HostData } from '../hostdata/host-data.js';
import { CONFIG_HASH_ANNOTATION, type DesiredObject } from '../resources/objects.js';
import type { RenderContext } from './context.js';
import { ServiceInputError } from './errors.js';
import { renderServices, roleNeeds } from './render.js';

const ED25519_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb8m3Ue0MYdKYsK6mXoWqHcD7r9R3ls6dB1m0rA6q4x user@example';

function host(
  name: string,
  ips: Record<string, string>,
  bmc = `redfish+https://10.9.0.${name.length}/redfish/v1/Systems/1`,
): HostData {
  return {
    host: { namespace: 'metal3', name, labels: {} },
    networkDataSecret: `metal3/${name}-nd`,
    networkData: {
      links: [],
      networks: Object.entries(ips).map(([id, ip]) => ({ id, link: undefined, ipAddress: ip })),
    },
    networkDataError: undefined,
    bmc: { ...parseBmcAddress(bmc), username: 'admin', password: 'pw' },
    bmcError: undefined,
  };
}

const services: SIPClusterServices = {
  loadBalancerControlPlane: [{ image: 'haproxy:2.3.2', nodePort: 30001, nodeInterfaceId: 'oam-ipv4' }],
  loadBalancerWorker: [{ nodePortRange: { start: 30002, end: 30004 }, nodeInterfaceId: 'oam-ipv4' }],
  jumpHost: [
    {
      nodePort: 30000,
      nodeInterfaceId: 'oam-ipv4',
      nodeSSHPrivateKeys: 'ssh-private-keys',
      sshAuthorizedKeys: [ED25519_KEY],
      bmc: { proxy: false },
    },
  ],
  auth: [
    {
      nodePort: 30556,
      staticClients: [
        {
          id: 'kubernetes',
          redirectURIs: ['http://localhost:8000'],
          secretRef: { name: 'oidc', key: 'clientSecret' },
        },
        { id: 'cli', redirectURIs: ['urn:ietf:wg:oauth:2.0:oob'], public: true },
      ],
      connectors: [{ type: 'ldap', id: 'ldap', name: 'LDAP', config: { host: 'ldap.example:636' } }],
      envFromSecret: 'dex-env',
    },
  ],
};

function context(cpIp = '10.0.0.2'): RenderContext {
  return {
    cluster: { namespace: 'tenant', name: 'c1' },
    images: { loadBalancer: 'default/haproxy', jumpHost: 'default/jump', auth: 'default/dex' },
    stringifyYaml: stringify,
    hostsByRole: new Map([
      ['ControlPlane', [host('cp-1', { 'oam-ipv4': '10.0.0.1' }), host('cp-2', { 'oam-ipv4': cpIp })]],
      ['Worker', [host('w-1', { 'oam-ipv4': '10.0.1.1', 'pxe-ipv4': '172.30.0.1' })]],
    ]),
  };
}

function find(objects: DesiredObject[], kind: string, name: string) {
  const o = objects.find((d) => d.object.kind === kind && d.object.metadata.name === name);
  if (!o)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((d) => `${d.object.kind}/${d.object.metadata.name}`).join(', ')}`,
    );
  return o.object as Record<string, unknown> & { metadata: { name: string } };
}
const secretText = (o: Record<string, unknown>, key: string) =>
  Buffer.from((o['data'] as Record<string, string>)[key]!, 'base64').toString('utf8');
const podTemplate = (d: Record<string, unknown>) =>
  (
    d['spec'] as {
      template: { metadata: { annotations: Record<string, string> }; spec: Record<string, unknown> };
    }
  ).template;

describe('load balancers', () => {
  const objects = renderServices(context(), services, ['id_rsa']);

  it('control plane: haproxy.cfg forwards 6443 to every ControlPlane host, checked on /readyz', () => {
    const cfg = secretText(find(objects, 'Secret', 'loadbalancer-controlplane-c1'), 'haproxy.cfg');
    expect(cfg).toContain('bind *:6443');
    expect(cfg).toContain('option httpchk GET /readyz');
    expect(cfg.match(/^\s+server .*$/gm)).toEqual([
      '  server cp-1 10.0.0.1:6443',
      '  server cp-2 10.0.0.2:6443',
    ]);
    const svc = find(objects, 'Service', 'loadbalancer-controlplane-c1');
    expect(svc['spec']).toMatchObject({
      type: 'NodePort',
      ports: [{ name: 'http', port: 6443, nodePort: 30001 }],
    });
  });

  it('worker: one frontend per port of the range, to the same port on the workers', () => {
    const cfg = secretText(find(objects, 'Secret', 'loadbalancer-worker-c1'), 'haproxy.cfg');
    for (const p of [30002, 30003, 30004]) {
      expect(cfg).toContain(`frontend port-${p}-frontend\n  bind *:${p}`);
      expect(cfg).toContain(`server w-1 10.0.1.1:${p}`);
    }
    expect(cfg).not.toContain('cp-1');
    const svc = find(objects, 'Service', 'loadbalancer-worker-c1');
    expect((svc['spec'] as { ports: unknown[] }).ports).toHaveLength(3);
    const deployment = find(objects, 'Deployment', 'loadbalancer-worker-c1');
    expect(podTemplate(deployment).spec['containers']).toMatchObject([{ image: 'default/haproxy' }]);
  });

  it("a site's template (ConfigMap) is rendered with upstream's data: ContainerPorts and Servers", () => {
    const template = [
      'defaults',
      '  mode tcp',
      '{{- $servers := .Servers }}{{ range .ContainerPorts }}',
      'listen {{ .Name }} # {{ .Protocol }}{{ .HostPort }}',
      '  bind *:{{ .ContainerPort }}',
      '{{- $port := .ContainerPort }}{{ range $servers }}',
      '  server {{ .Name }} {{ .IP }}:{{ $port }}{{ end }}',
      '{{ end }}',
    ].join('\n');
    const ctx = {
      ...context(),
      loadBalancerTemplates: new Map([
        ['Worker', { source: 'ConfigMap tenant/loadbalancerworker', text: template }],
      ]),
    };
    const rendered = renderServices(ctx, services, ['id_rsa']);
    expect(secretText(find(rendered, 'Secret', 'loadbalancer-worker-c1'), 'haproxy.cfg')).toBe(
      [30002, 30003, 30004]
        .map((p) => `\nlisten port-${p} # 0\n  bind *:${p}\n  server w-1 10.0.1.1:${p}\n`)
        .join('')
        .replace(/^/, 'defaults\n  mode tcp'),
    );
    // the control plane, without a template of its own, keeps the built-in config
    expect(secretText(find(rendered, 'Secret', 'loadbalancer-controlplane-c1'), 'haproxy.cfg')).toContain(
      'option httpchk GET /readyz',
    );
  });

  it("a site's template that does not parse is an input error naming the ConfigMap and the line", () => {
    const ctx = {
      ...context(),
      loadBalancerTemplates: new Map([
        [
          'ControlPlane',
          { source: 'ConfigMap tenant/loadbalancercontrolplane, key k', text: 'a\n{{ range .Servers }}' },
        ],
      ]),
    };
    expect(() => renderServices(ctx, services, ['id_rsa'])).toThrow(
      new ServiceInputError(
        'ConfigMap tenant/loadbalancercontrolplane, key k: line 2: unexpected EOF: {{range}} has no {{end}}',
      ),
    );
  });

  it("a service's image from the spec wins over the operator's default", () => {
    const deployment = find(objects, 'Deployment', 'loadbalancer-controlplane-c1');
    expect(podTemplate(deployment).spec['containers']).toMatchObject([{ image: 'haproxy:2.3.2' }]);
  });

  it('an IPv6 backend is written in brackets', () => {
    const ctx = context('fd00::2');
    const cfg = secretText(
      find(renderServices(ctx, services, []), 'Secret', 'loadbalancer-controlplane-c1'),
      'haproxy.cfg',
    );
    expect(cfg).toContain('server cp-2 [fd00::2]:6443');
  });

  it('a host IP change changes the config hash (rolls the Deployment); the same input does not', () => {
    const hash = (ctx: RenderContext) =>
      podTemplate(
        find(renderServices(ctx, services, ['id_rsa']), 'Deployment', 'loadbalancer-controlplane-c1'),
      ).metadata.annotations[CONFIG_HASH_ANNOTATION];
    expect(hash(context())).toBe(hash(context()));
    expect(hash(context('10.0.0.99'))).not.toBe(hash(context()));
  });

  it('uses nodeLabels as the nodeSelector', () => {
    const lb = {
      ...services,
      loadBalancerControlPlane: [
        { nodePort: 30001, nodeLabels: { 'node-role.kubernetes.io/control-plane': '' } },
      ],
    };
    const d = find(renderServices(context(), lb, []), 'Deployment', 'loadbalancer-controlplane-c1');
    expect(podTemplate(d).spec['nodeSelector']).toEqual({ 'node-role.kubernetes.io/control-plane': '' });
  });
});

describe('jump host', () => {
  const objects = renderServices(context(), services, ['id_rsa', 'a_key']);

  it('hosts file lists every host with its BMC', () => {
    const hosts = JSON.parse(secretText(find(objects, 'Secret', 'jumphost-c1'), 'hosts'));
    expect(hosts.map((h: { name: string }) => h.name)).toEqual(['cp-1', 'cp-2', 'w-1']);
    expect(hosts[0].bmc).toMatchObject({
      ip: '10.9.0.4',
      protocol: 'redfish',
      username: 'admin',
      password: 'pw',
    });
  });

  it('ssh_config uses every private key and lists every host', () => {
    const cfg = secretText(find(objects, 'Secret', 'jumphost-c1'), 'ssh_config');
    expect(cfg).toBe(
      [
        'Host *',
        '  IdentityFile /etc/opt/sip/ssh-private-keys/a_key',
        '  IdentityFile /etc/opt/sip/ssh-private-keys/id_rsa',
        '',
        'Host cp-1',
        '  HostName 10.0.0.1',
        '',
        'Host cp-2',
        '  HostName 10.0.0.2',
        '',
        'Host w-1',
        '  HostName 10.0.1.1',
        '',
      ].join('\n'),
    );
  });

  it('pods resolve the hosts, bypass proxies for the BMC and carry the authorized keys', () => {
    const template = podTemplate(find(objects, 'Deployment', 'jumphost-c1'));
    expect(template.spec['hostAliases']).toEqual([
      { ip: '10.0.0.1', hostnames: ['cp-1'] },
      { ip: '10.0.0.2', hostnames: ['cp-2'] },
      { ip: '10.0.1.1', hostnames: ['w-1'] },
    ]);
    expect(template.spec['containers']).toMatchObject([
      {
        env: [
          { name: 'NO_PROXY', value: '*' },
          { name: 'no_proxy', value: '*' },
        ],
      },
    ]);
    const cm = find(objects, 'ConfigMap', 'jumphost-c1');
    expect((cm['data'] as Record<string, string>)['authorized-keys']).toBe(`${ED25519_KEY}\n`);
    expect((cm['data'] as Record<string, string>)['host']).toMatch(/^#!\/bin\/sh/);
  });

  it('with bmc.proxy the proxy variables are left alone', () => {
    const jh = { ...services, jumpHost: [{ ...services.jumpHost![0]!, bmc: { proxy: true } }] };
    const template = podTemplate(find(renderServices(context(), jh, []), 'Deployment', 'jumphost-c1'));
    expect(template.spec['containers']).toMatchObject([{ env: [] }]);
  });

  it('rejects an authorized key whose blob is not a key, naming its index', () => {
    const jh = {
      ...services,
      jumpHost: [
        {
          ...services.jumpHost![0]!,
          sshAuthorizedKeys: [ED25519_KEY, 'ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIGb8 x'],
        },
      ],
    };
    expect(() => renderServices(context(), jh, [])).toThrow(ServiceInputError);
    expect(() => renderServices(context(), jh, [])).toThrow(
      /sshAuthorizedKeys\[1\].*not ssh-rsa|sshAuthorizedKeys\[1\]/,
    );
  });
});

describe('auth (Dex)', () => {
  const objects = renderServices(context(), services, []);

  it('config has the issuer, clients with secretEnv, and the connectors', () => {
    const config = parse(secretText(find(objects, 'Secret', 'auth-c1'), 'config.yaml'));
    expect(config).toMatchObject({
      issuer: 'http://auth-c1.tenant.svc:5556/dex',
      storage: { type: 'memory' },
      web: { http: '0.0.0.0:5556' },
      staticClients: [
        { id: 'kubernetes', secretEnv: 'SIP_DEX_CLIENT_0_SECRET', redirectURIs: ['http://localhost:8000'] },
        { id: 'cli', public: true },
      ],
      connectors: [{ type: 'ldap', id: 'ldap', name: 'LDAP', config: { host: 'ldap.example:636' } }],
    });
    expect(config.staticClients[1].secretEnv).toBeUndefined();
  });

  it('the Deployment gets client secrets from their Secrets and serves HTTPS with tlsSecret', () => {
    const tls = { ...services, auth: [{ ...services.auth![0]!, tlsSecret: 'dex-tls' }] };
    const all = renderServices(context(), tls, []);
    const template = podTemplate(find(all, 'Deployment', 'auth-c1'));
    expect(template.spec['containers']).toMatchObject([
      {
        image: 'default/dex',
        env: [
          {
            name: 'SIP_DEX_CLIENT_0_SECRET',
            valueFrom: { secretKeyRef: { name: 'oidc', key: 'clientSecret' } },
          },
        ],
        envFrom: [{ secretRef: { name: 'dex-env' } }],
      },
    ]);
    expect(template.spec['volumes']).toContainEqual({ name: 'tls', secret: { secretName: 'dex-tls' } });
    const config = parse(secretText(find(all, 'Secret', 'auth-c1'), 'config.yaml'));
    expect(config.issuer).toBe('https://auth-c1.tenant.svc:5556/dex');
    expect(config.web).toEqual({
      https: '0.0.0.0:5556',
      tlsCert: '/etc/dex/tls/tls.crt',
      tlsKey: '/etc/dex/tls/tls.key',
    });
  });

  it('is not rendered when not asked for', () => {
    const names = (objects: DesiredObject[]) => new Set(objects.map((d) => d.object.metadata.name));
    expect(names(renderServices(context(), services, []))).toContain('auth-c1');
    expect(names(renderServices(context(), { ...services, auth: undefined }, []))).toEqual(
      new Set(['loadbalancer-controlplane-c1', 'loadbalancer-worker-c1', 'jumphost-c1']),
    );
  });
});

describe('role needs', () => {
  it('ControlPlane needs the CP load balancer and jump host interfaces; BMC with a jump host', () => {
    expect(roleNeeds(services, 'ControlPlane')).toEqual({ interfaces: new Set(['oam-ipv4']), bmc: true });
    const s = { loadBalancerWorker: [{ nodePortRange: { start: 1, end: 2 }, nodeInterfaceId: 'pxe-ipv4' }] };
    expect(roleNeeds(s, 'Worker')).toEqual({ interfaces: new Set(['pxe-ipv4']), bmc: false });
    expect(roleNeeds(s, 'ControlPlane')).toEqual({ interfaces: new Set(), bmc: false });
  });
});
