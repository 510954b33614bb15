import { describe, expect, it } from 'vitest';
import { samplePlacementAPI } from '../../test/fixtures.js';
import { dbSyncJob } from './db-sync-job.js';
import { placementDeployment } from './deployment.js';

const cr = samplePlacementAPI;

const networks = { 'k8s.v1.cni.cncf.io/networks': '[]' };

interface ContainerView {
  name: string;
  image: string;
  command: string[];
  env: { name: string; value: string }[];
  volumeMounts: unknown[];
  readinessProbe: { httpGet: { port: number; path: string } };
  livenessProbe: { httpGet: { port: number; path: string } };
}
interface DeploymentView {
  metadata: { name: string };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: {
        serviceAccountName: string;
        nodeSelector: Record<string, string>;
        volumes: unknown[];
        containers: ContainerView[];
        affinity: unknown;
      };
    };
  };
}

describe('placementDeployment', () => {
  const build = (hash: string) =>
    placementDeployment(cr({ replicas: 3, nodeSelector: { role: 'ctl' } }), {
      image: 'img:1',
      configHash: hash,
      podAnnotations: networks,
    }) as unknown as DeploymentView;
  const d = build('h1');
  const pod = d.spec.template.spec;

  it('selects and labels pods with service and owner', () => {
    expect(d.metadata.name).toBe('placement');
    expect(d.spec.selector.matchLabels).toEqual({ service: 'placement', owner: 'placement' });
    expect(d.spec.template.metadata.labels).toEqual({ service: 'placement', owner: 'placement' });
    expect(d.spec.replicas).toBe(3);
  });

  it('runs a -log and an -api container with the config hash and probes on 8778', () => {
    expect(pod.containers.map((c) => c.name)).toEqual(['placement-log', 'placement-api']);
    for (const c of pod.containers) {
      expect(c.image).toBe('img:1');
      expect(c.env).toContainEqual({ name: 'CONFIG_HASH', value: 'h1' });
      expect(c.readinessProbe.httpGet.port).toBe(8778);
      expect(c.livenessProbe.httpGet.path).toBe('/');
    }
    expect(pod.containers[1]!.command).toEqual(['/bin/bash', '-c', '/usr/local/bin/kolla_start']);
  });

  it('mounts the config Secret and the API kolla config, uses the placement ServiceAccount', () => {
    expect(pod.serviceAccountName).toBe('placement-placement');
    expect(pod.volumes[0]).toEqual({
      name: 'config-data',
      secret: { secretName: 'placement-config-data', defaultMode: 0o640 },
    });
    expect(pod.containers[1]!.volumeMounts).toContainEqual({
      name: 'config-data',
      mountPath: '/var/lib/kolla/config_files/config.json',
      subPath: 'placement-api-config.json',
      readOnly: true,
    });
    expect(pod.nodeSelector).toEqual({ role: 'ctl' });
    expect(d.spec.template.metadata.annotations).toEqual(networks);
  });

  it('spreads pods over nodes by the service label', () => {
    expect(JSON.stringify(pod.affinity)).toContain('"values":["placement"]');
  });

  it('differs only in CONFIG_HASH when the hash changes', () => {
    const other = build('h2');
    const strip = (x: unknown) => JSON.stringify(x).replaceAll('"h1"', '"H"').replaceAll('"h2"', '"H"');
    expect(strip(other)).toBe(strip(d));
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(d));
  });
});

describe('dbSyncJob', () => {
  it('runs kolla_start with the db-sync kolla config as the placement user', () => {
    const job = dbSyncJob(cr(), 'img:1', networks);
    expect(job.metadata.name).toBe('placement-db-sync');
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('OnFailure');
    expect(pod.containers[0]!.name).toBe('placement-db-sync');
    expect(pod.containers[0]!.env).toContainEqual({ name: 'KOLLA_BOOTSTRAP', value: 'true' });
    expect(pod.containers[0]!.volumeMounts).toContainEqual(
      expect.objectContaining({ subPath: 'placement-dbsync-config.json' }),
    );
    expect(pod.containers[0]!.securityContext.runAsUser).toBe(42482);
    // kolla_start copies the config through sudo: no_new_privs would refuse it
    expect(pod.containers[0]!.securityContext).not.toHaveProperty('allowPrivilegeEscalation', false);
  });

  it('does not depend on the config (no CONFIG_HASH): config changes do not re-run it', () => {
    const pod = dbSyncJob(cr({ customServiceConfig: 'x' }), 'img:1', networks).spec.template.spec;
    expect(JSON.stringify(pod)).toBe(JSON.stringify(dbSyncJob(cr(), 'img:1', networks).spec.template.spec));
    expect(JSON.stringify(pod)).not.toContain('CONFIG_HASH');
  });
});
