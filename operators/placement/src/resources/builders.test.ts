import { describe, expect, it } from 'vitest';
import { samplePlacementAPI } from '../../test/fixtures.js';
import { dbSyncJob } from './db-sync-job.js';
import { placementDeployment } from './deployment.js';

/**
 * The pods against upstream placement-operator's documented values: its kuttl asserts
 * (assert_sample_deployment.yaml, placement_deploy_tls/03-assert.yaml) compare container lists,
 * volume mounts and args element by element and in order, so the same is checked here.
 */

const cr = samplePlacementAPI;
const networks = { 'k8s.v1.cni.cncf.io/networks': '[]' };
type Json = Record<string, unknown>;
interface PodView {
  metadata: { labels?: Record<string, string>; annotations: Record<string, string> };
  spec: {
    serviceAccountName: string;
    automountServiceAccountToken?: boolean;
    nodeSelector?: Record<string, string>;
    volumes: Json[];
    containers: (Json & { name: string; env: Json[]; volumeMounts: Json[] })[];
    affinity: unknown;
  };
}
interface DeploymentView {
  metadata: { name: string };
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: PodView };
}

const TLS = {
  api: { internal: { secretName: 'cert-internal-svc' }, public: { secretName: 'cert-public-svc' } },
  caBundleSecretName: 'combined-ca-bundle',
};

/** upstream's mounts of every placement container (api kolla config; dbsync for the Job). */
const upstreamMounts = (kolla: 'api' | 'dbsync') => [
  { name: 'scripts', mountPath: '/usr/local/bin/container-scripts', readOnly: true },
  { name: 'logs', mountPath: '/var/log/placement' },
  { name: 'config-data', mountPath: '/var/lib/openstack/config' },
  {
    name: 'config-data',
    mountPath: '/var/lib/kolla/config_files/config.json',
    subPath: `placement-${kolla}-config.json`,
    readOnly: true,
  },
];
const caMount = {
  name: 'combined-ca-bundle',
  mountPath: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  subPath: 'tls-ca-bundle.pem',
  readOnly: true,
};
const certMounts = (ep: string) => [
  {
    name: `${ep}-tls-certs`,
    mountPath: `/var/lib/config-data/tls/certs/${ep}.crt`,
    subPath: 'tls.crt',
    readOnly: true,
  },
  {
    name: `${ep}-tls-certs`,
    mountPath: `/var/lib/config-data/tls/private/${ep}.key`,
    subPath: 'tls.key',
    readOnly: true,
  },
];
const upstreamVolumes = [
  { name: 'scripts', secret: { secretName: 'placement-scripts', defaultMode: 0o755 } },
  { name: 'config-data', secret: { secretName: 'placement-config-data', defaultMode: 0o640 } },
  { name: 'logs', emptyDir: {} },
];
const probe = (scheme: 'HTTP' | 'HTTPS') => ({
  httpGet: { path: '/', port: 8778, scheme },
  initialDelaySeconds: 5,
  periodSeconds: 30,
  timeoutSeconds: 30,
});

const deployment = (spec: Partial<Parameters<typeof cr>[0]> = {}, hash = 'h1') =>
  placementDeployment(cr(spec), {
    image: 'img:1',
    configHash: hash,
    podAnnotations: networks,
  }) as unknown as DeploymentView;

describe('placementDeployment', () => {
  const d = deployment({ replicas: 3, nodeSelector: { role: 'ctl' } });
  const pod = d.spec.template;
  it('selects and labels pods with service and owner', () => {
    expect(d.metadata.name).toBe('placement');
    expect(d.spec.selector.matchLabels).toEqual({ service: 'placement', owner: 'placement' });
    expect(pod.metadata.labels).toEqual({ service: 'placement', owner: 'placement' });
    expect(pod.metadata.annotations).toEqual(networks);
    expect(d.spec.replicas).toBe(3);
    expect(pod.spec.nodeSelector).toEqual({ role: 'ctl' });
  });

  it("runs upstream's -log and -api containers: command/args split, env sorted, mounts in order, placement uid; the API's preStop", () => {
    const [log, api] = pod.spec.containers;
    const common = {
      image: 'img:1',
      imagePullPolicy: 'IfNotPresent',
      securityContext: { runAsUser: 42482 },
      env: [
        { name: 'CONFIG_HASH', value: 'h1' },
        { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
      ],
      volumeMounts: upstreamMounts('api'),
      livenessProbe: probe('HTTP'),
      readinessProbe: probe('HTTP'),
    };
    expect(log).toEqual({
      name: 'placement-log',
      command: ['/usr/bin/dumb-init'],
      args: ['--single-child', '--', '/usr/bin/tail', '-n+1', '-F', '/var/log/placement/placement-api.log'],
      ...common,
    });
    expect(api).toEqual({
      name: 'placement-api',
      command: ['/bin/bash'],
      args: ['-c', '/usr/local/bin/kolla_start'],
      ...common,
      // stackops: the API keeps serving while a drain or rollout takes it off the Service
      lifecycle: { preStop: { exec: { command: ['/bin/sleep', '5'] } } },
    });
    expect(pod.spec.containers).toHaveLength(2);
  });

  it("has upstream's volumes (scripts 0755, config-data 0640, logs), its ServiceAccount and no token", () => {
    expect(pod.spec.volumes).toEqual(upstreamVolumes);
    expect(pod.spec.serviceAccountName).toBe('placement-placement');
    expect(pod.spec.automountServiceAccountToken).toBe(false);
  });

  it('spreads pods over nodes by the service label (preferred, weight 100, per hostname)', () => {
    expect(pod.spec.affinity).toEqual({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: {
                matchExpressions: [{ key: 'service', operator: 'In', values: ['placement'] }],
              },
              topologyKey: 'kubernetes.io/hostname',
            },
          },
        ],
      },
    });
  });

  it('mounts the CA bundle and the internal then public certificates, probes over HTTPS with tls', () => {
    const tlsPod = deployment({ tls: TLS }).spec.template.spec;
    for (const c of tlsPod.containers) {
      expect(c.volumeMounts).toEqual([
        ...upstreamMounts('api'),
        caMount,
        ...certMounts('internal'),
        ...certMounts('public'),
      ]);
      expect(c['livenessProbe']).toEqual(probe('HTTPS'));
      expect(c['readinessProbe']).toEqual(probe('HTTPS'));
    }
    expect(tlsPod.volumes).toEqual([
      ...upstreamVolumes,
      { name: 'combined-ca-bundle', secret: { secretName: 'combined-ca-bundle', defaultMode: 0o444 } },
      { name: 'internal-tls-certs', secret: { secretName: 'cert-internal-svc', defaultMode: 0o400 } },
      { name: 'public-tls-certs', secret: { secretName: 'cert-public-svc', defaultMode: 0o400 } },
    ]);
  });

  it('probes over HTTP when only the internal endpoint has a certificate (upstream follows public)', () => {
    const c = deployment({ tls: { api: { internal: { secretName: 'x' } } } }).spec.template.spec
      .containers[1]!;
    expect(c['readinessProbe']).toEqual(probe('HTTP'));
    expect(c.volumeMounts).toEqual([...upstreamMounts('api'), ...certMounts('internal')]);
  });

  it('merges override.probes field by field (set fields win), and adds a startup probe only when asked', () => {
    const c = deployment({
      override: {
        probes: {
          livenessProbes: { periodSeconds: 7, failureThreshold: 4 },
          readinessProbes: { path: '/healthcheck', timeoutSeconds: 0 },
          startupProbes: { type: 'Exec', command: ['true'] },
        },
      },
    }).spec.template.spec.containers[1]!;
    expect(c['livenessProbe']).toEqual({ ...probe('HTTP'), periodSeconds: 7, failureThreshold: 4 });
    expect(c['readinessProbe']).toEqual({
      ...probe('HTTP'),
      httpGet: { path: '/healthcheck', port: 8778, scheme: 'HTTP' },
    });
    expect(c['startupProbe']).toEqual({
      exec: { command: ['true'] },
      periodSeconds: 10,
      failureThreshold: 6,
    });
    expect(deployment().spec.template.spec.containers[1]).not.toHaveProperty('startupProbe');
  });

  it('gives both containers spec.resources', () => {
    const resources = { requests: { cpu: '1', memory: '500Mi' }, limits: { memory: '1Gi' } };
    for (const c of deployment({ resources }).spec.template.spec.containers)
      expect(c['resources']).toEqual(resources);
  });

  it('differs only in CONFIG_HASH when the hash changes', () => {
    const strip = (x: unknown) => JSON.stringify(x).replaceAll('"h1"', '"H"').replaceAll('"h2"', '"H"');
    const other = deployment({ replicas: 3, nodeSelector: { role: 'ctl' } }, 'h2');
    expect(strip(other)).toBe(strip(d));
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(d));
  });
});

describe('dbSyncJob', () => {
  it("runs upstream's db-sync container: bash -c kolla_start, KOLLA_BOOTSTRAP, dbsync kolla config, placement uid", () => {
    const job = dbSyncJob(cr(), 'img:1', networks);
    expect(job.metadata.name).toBe('placement-db-sync');
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('OnFailure');
    expect(pod.serviceAccountName).toBe('placement-placement');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.volumes).toEqual(upstreamVolumes);
    expect(pod.containers).toEqual([
      {
        name: 'placement-db-sync',
        image: 'img:1',
        imagePullPolicy: 'IfNotPresent',
        command: ['/bin/bash'],
        args: ['-c', '/usr/local/bin/kolla_start'],
        env: [
          { name: 'KOLLA_BOOTSTRAP', value: 'true' },
          { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
        ],
        volumeMounts: upstreamMounts('dbsync'),
        securityContext: { runAsUser: 42482 },
      },
    ]);
  });

  it('labels the Job, not its pods: -l service=placement finds API pods only', () => {
    const job = dbSyncJob(cr(), 'img:1', networks);
    expect(job.metadata.labels).toEqual({ service: 'placement', owner: 'placement' });
    expect(job.spec.template.metadata).toEqual({ annotations: networks });
  });

  it('mounts the CA bundle (not the endpoint certificates) when tls has a caBundleSecretName', () => {
    const pod = dbSyncJob(cr({ tls: TLS }), 'img:1', networks).spec.template.spec;
    expect(pod.containers[0]!.volumeMounts).toEqual([...upstreamMounts('dbsync'), caMount]);
    expect(pod.volumes.map((v) => v.name)).toEqual(['scripts', 'config-data', 'logs', 'combined-ca-bundle']);
  });

  it('does not depend on the config (no CONFIG_HASH): config changes do not re-run it', () => {
    const pod = dbSyncJob(cr({ customServiceConfig: 'x' }), 'img:1', networks).spec.template.spec;
    expect(JSON.stringify(pod)).toBe(JSON.stringify(dbSyncJob(cr(), 'img:1', networks).spec.template.spec));
    expect(JSON.stringify(pod)).not.toContain('CONFIG_HASH');
  });
});
