import type { KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { everyComponent } from '../../../test/fixtures.js';
import type { NetworkAddonsConfigSpec } from '../../api/network-addons-config.js';
import { DEFAULT_IMAGES } from '../../config/images.js';
import { fillDefaults } from '../../network/network.js';
import { selectTlsSettings } from '../../network/tls-profile.js';
import { kindOf } from '../kinds.js';
import { renderComponents } from '../render.js';
import { renderContext } from '../render-context.js';
import { COMPONENTS } from './index.js';

const NS = 'cnao-test';

/** The fields of rendered objects these tests read. */
type Rendered = KubeObject & {
  data: Record<string, string>;
  webhooks: { clientConfig: { service: object; caBundle?: string } }[];
};
const images = Object.fromEntries(
  Object.keys(DEFAULT_IMAGES).map((k) => [k, `registry.test/${k}:v1`]),
) as typeof DEFAULT_IMAGES;

function render(spec: NetworkAddonsConfigSpec, opts: { certManager?: boolean } = {}): KubeObject[] {
  const filled = fillDefaults(spec, undefined, () => Uint8Array.from([0xab, 0xcd]));
  const ctx = renderContext(filled, {
    namespace: NS,
    images,
    certManagerAvailable: opts.certManager ?? false,
    tls: selectTlsSettings(filled.tlsSecurityProfile),
  });
  return renderComponents(filled, ctx).map((r) => r.object);
}

const find = (objs: KubeObject[], kind: string, name: string) => {
  const found = objs.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(
      `${kind} ${name} not rendered; got ${objs.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  return found as Rendered;
};
const names = (objs: KubeObject[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);
type PodSpec = {
  containers: {
    image: string;
    imagePullPolicy: string;
    name: string;
    env?: { name: string; value?: string }[];
    args?: string[];
    envFrom?: unknown[];
  }[];
  initContainers?: { image: string; imagePullPolicy: string }[];
  nodeSelector?: unknown;
  tolerations?: unknown;
  affinity?: unknown;
};
const podSpec = (o: KubeObject) => (o['spec'] as { template: { spec: PodSpec } }).template.spec;
const workloads = (objs: KubeObject[]) =>
  objs.filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment');

const ALL = everyComponent();

/** Upstream's component → object map used by its e2e checks (test/check/components.go), SCCs aside. */
const UPSTREAM_OBJECTS: Record<string, string[]> = {
  multus: ['ClusterRole/multus', 'ClusterRoleBinding/multus', 'DaemonSet/multus'],
  linuxBridge: [
    'ClusterRole/bridge-marker-cr',
    'ClusterRoleBinding/bridge-marker-crb',
    'DaemonSet/bridge-marker',
    'DaemonSet/kube-cni-linux-bridge-plugin',
  ],
  kubeMacPool: [
    'ClusterRole/kubemacpool-manager-role',
    'ClusterRoleBinding/kubemacpool-manager-rolebinding',
    'Deployment/kubemacpool-mac-controller-manager',
    'Deployment/kubemacpool-cert-manager',
    'MutatingWebhookConfiguration/kubemacpool-mutator',
    'ConfigMap/kubemacpool-mac-range-config',
  ],
  ovs: ['ClusterRole/ovs-cni-marker-cr', 'ClusterRoleBinding/ovs-cni-marker-crb', 'DaemonSet/ovs-cni-amd64'],
  macvtap: ['DaemonSet/macvtap-cni'],
  multusDynamicNetworks: [
    'ClusterRole/dynamic-networks-controller',
    'ClusterRoleBinding/dynamic-networks-controller',
    'DaemonSet/dynamic-networks-controller-ds',
  ],
  kubeSecondaryDNS: ['ClusterRole/secondary', 'ClusterRoleBinding/secondary', 'Deployment/secondary-dns'],
  kubevirtIpamController: [
    'ClusterRole/kubevirt-ipam-controller-manager-role',
    'ClusterRoleBinding/kubevirt-ipam-controller-manager-rolebinding',
    'Deployment/kubevirt-ipam-controller-manager',
  ],
  nmstate: ['DaemonSet/nmstate-handler', 'ClusterRole/nmstate-handler', 'ConfigMap/nmstate-config'],
};

describe('component templates', () => {
  it('render only the network policies for an empty spec', () => {
    expect(names(render({}))).toEqual([
      'NetworkPolicy/cnao-allow-egress-to-cluster-api',
      'NetworkPolicy/cnao-allow-egress-to-cluster-dns',
    ]);
  });

  for (const [component, expected] of Object.entries(UPSTREAM_OBJECTS)) {
    it(`render upstream's objects for ${component}`, () => {
      const spec =
        component === 'multusDynamicNetworks'
          ? { multus: {}, multusDynamicNetworks: {} }
          : { [component]: {} };
      expect(names(render(spec))).toEqual(expect.arrayContaining(expected));
    });
  }

  it('put every namespaced object into the operand namespace and use only kinds the chart grants', () => {
    for (const obj of render(ALL, { certManager: true })) {
      const kind = kindOf(obj);
      expect(obj.metadata.namespace, `${obj.kind}/${obj.metadata.name}`).toBe(
        kind.namespaced ? NS : undefined,
      );
    }
  });

  it('render no object twice', () => {
    const all = names(render(ALL));
    expect(new Set(all).size).toBe(all.length);
  });

  it('give every container its component image and the pull policy', () => {
    const objs = render({ ...ALL, imagePullPolicy: 'Always' });
    const used = new Set<string>();
    for (const w of workloads(objs)) {
      const spec = podSpec(w);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(c.imagePullPolicy, `${w.metadata.name}`).toBe('Always');
        expect(Object.values(images)).toContain(c.image);
        used.add(c.image);
      }
    }
    expect([...used].sort()).toEqual(Object.values(images).sort());
    expect(podSpec(find(objs, 'DaemonSet', 'bridge-marker')).containers[0]!.image).toBe(
      images.linuxBridgeMarker,
    );
    expect(podSpec(find(objs, 'Deployment', 'secondary-dns')).containers.map((c) => c.image)).toEqual([
      images.coreDns,
      images.kubeSecondaryDns,
    ]);
  });

  it('place DaemonSets with the workloads placement and Deployments with the infra placement', () => {
    const workloadsPlacement = {
      nodeSelector: { role: 'worker' },
      tolerations: [{ key: 'a', operator: 'Exists' }],
    };
    const infraPlacement = { nodeSelector: { role: 'infra' } };
    const objs = render({
      ...ALL,
      placementConfiguration: { workloads: workloadsPlacement, infra: infraPlacement },
    });
    for (const w of workloads(objs)) {
      const spec = podSpec(w);
      const expected = w.kind === 'DaemonSet' ? workloadsPlacement : infraPlacement;
      expect(spec.nodeSelector, w.metadata.name).toEqual(expected.nodeSelector);
      expect(spec.tolerations, w.metadata.name).toEqual((expected as { tolerations?: unknown }).tolerations);
      expect(spec.affinity, w.metadata.name).toBeUndefined();
    }
  });

  it('configure KubeMacPool from the range and the self-sign configuration', () => {
    const objs = render({
      kubeMacPool: { rangeStart: '02:10:10:00:00:00', rangeEnd: '02:10:10:00:FF:FF' },
      selfSignConfiguration: {
        caRotateInterval: '200h20m2s',
        caOverlapInterval: '24h',
        certRotateInterval: '100h',
        certOverlapInterval: '1h',
      },
    });
    expect(find(objs, 'ConfigMap', 'kubemacpool-mac-range-config')['data']).toEqual({
      RANGE_START: '02:10:10:00:00:00',
      RANGE_END: '02:10:10:00:FF:FF',
    });
    const env = podSpec(find(objs, 'Deployment', 'kubemacpool-cert-manager')).containers[0]!.env!;
    expect(
      Object.fromEntries(env.filter((e) => e.name.endsWith('_INTERVAL')).map((e) => [e.name, e.value])),
    ).toEqual({
      CA_ROTATE_INTERVAL: '200h20m2s',
      CA_OVERLAP_INTERVAL: '24h',
      CERT_ROTATE_INTERVAL: '100h',
      CERT_OVERLAP_INTERVAL: '1h',
    });
    const webhook = find(objs, 'MutatingWebhookConfiguration', 'kubemacpool-mutator');
    for (const w of webhook['webhooks']) {
      expect(w.clientConfig.service).toMatchObject({ name: 'kubemacpool-service', namespace: NS });
      expect(w.clientConfig.caBundle).toBeUndefined();
    }
    const args = podSpec(find(objs, 'Deployment', 'kubemacpool-mac-controller-manager')).containers[0]!.args;
    expect(args).toEqual(['--v=production', '--wait-time=300', '--tls-min-version=VersionTLS13']);
  });

  it('generate a range for KubeMacPool when none is given, and pass TLS ciphers of older profiles', () => {
    const objs = render({ kubeMacPool: {}, tlsSecurityProfile: { type: 'Intermediate', intermediate: {} } });
    expect(find(objs, 'ConfigMap', 'kubemacpool-mac-range-config')['data']).toEqual({
      RANGE_START: '02:ab:cd:00:00:00',
      RANGE_END: '02:ab:cd:ff:ff:ff',
    });
    const args = podSpec(find(objs, 'Deployment', 'kubemacpool-mac-controller-manager')).containers[0]!.args!;
    expect(args).toContain('--tls-min-version=VersionTLS12');
    expect(args.find((a) => a.startsWith('--tls-cipher-suites='))?.split(',')).toHaveLength(6);
  });

  it('point the macvtap device plugin at the configured ConfigMap', () => {
    const objs = render({ macvtap: { devicePluginConfig: 'another-config' } });
    expect(podSpec(find(objs, 'DaemonSet', 'macvtap-cni')).containers[0]!.envFrom).toEqual([
      { configMapRef: { name: 'another-config' } },
    ]);
    expect(find(objs, 'ConfigMap', 'macvtap-deviceplugin-config')['data']).toEqual({ DP_MACVTAP_CONF: '[]' });
  });

  it('mount the configured CRI socket into the dynamic networks controller', () => {
    const objs = render({
      multus: {},
      multusDynamicNetworks: { hostCRISocketPath: '/run/containerd/containerd.sock' },
    });
    const config = JSON.parse(
      find(objs, 'ConfigMap', 'dynamic-networks-controller-config')['data']['dynamic-networks-config.json'] ??
        '{}',
    );
    expect(config.criSocketPath).toBe('/host/run/containerd/containerd.sock');
  });

  it('configure the secondary DNS domain and name server', () => {
    const objs = render({ kubeSecondaryDNS: { domain: 'vm.example', nameServerIP: '10.0.0.53' } });
    expect(find(objs, 'ConfigMap', 'secondary-dns')['data']).toMatchObject({
      DOMAIN: 'vm.example',
      NAME_SERVER_IP: '10.0.0.53',
    });
  });

  it('pass the default network NAD namespace to the ipam controller only when set', () => {
    const args = (spec: NetworkAddonsConfigSpec) =>
      podSpec(find(render(spec), 'Deployment', 'kubevirt-ipam-controller-manager')).containers[0]!.args!;
    expect(args({ kubevirtIpamController: { defaultNetworkNADNamespace: 'test' } })).toContain(
      '--default-network-nad-namespace=test',
    );
    expect(
      args({ kubevirtIpamController: {} }).some((a) => a.startsWith('--default-network-nad-namespace')),
    ).toBe(false);
  });

  it('render cert-manager objects for the ipam controller only where cert-manager is installed', () => {
    const kinds = (certManager: boolean) => names(render({ kubevirtIpamController: {} }, { certManager }));
    expect(kinds(true)).toEqual(
      expect.arrayContaining([
        'Certificate/kubevirt-ipam-controller-serving-cert',
        'Issuer/kubevirt-ipam-controller-selfsigned-issuer',
      ]),
    );
    expect(kinds(false).some((n) => n.startsWith('Certificate/') || n.startsWith('Issuer/'))).toBe(false);
  });

  it('list every component once, in upstream order', () => {
    expect(COMPONENTS.map((c) => c.name)).toEqual([
      'multus',
      'multusDynamicNetworks',
      'linuxBridge',
      'kubeMacPool',
      'nmstate',
      'ovs',
      'macvtap',
      'kubeSecondaryDNS',
      'kubevirtIpamController',
      'networkPolicy',
    ]);
  });
});
