import { describe, expect, it } from 'vitest';
import { firstContainerOf, podSpecOf, podTemplateOf, sampleKeystoneAPI } from '../../test/fixtures.js';
import { resolveSpec } from '../config/spec.js';
import { buildScriptsSecret } from './config-data-secret.js';
import { buildTrustFlushCronJob } from './cronjob.js';
import { buildKeystoneDeployment } from './deployment.js';
import { buildBootstrapJob, buildDbSyncJob } from './jobs.js';

/**
 * keystone-operator's pod specs as upstream renders them (its internal/keystone/{deployment,
 * dbsync,bootstrap,cronjob,volumes}.go and the kuttl assert of the sample deployment): command and
 * args, volume and mount names, order and modes, labels. Written out here so they cannot drift.
 */
type Json = Record<string, unknown>;
const cr = sampleKeystoneAPI({});
const spec = resolveSpec(cr, { apiImage: 'img' });
const input = { cr, spec, podAnnotations: { 'k8s.v1.cni.cncf.io/networks': '[]' } };
const volumes = (obj: Json) =>
  (podSpecOf(obj)['volumes'] as Json[]).map((v) => {
    const secret = v['secret'] as Json;
    return [v['name'], secret['secretName'], secret['defaultMode']];
  });
const mounts = (obj: Json) =>
  (firstContainerOf(obj)['volumeMounts'] as Json[]).map((m) => [
    m['name'],
    m['mountPath'],
    m['subPath'],
    m['readOnly'],
  ]);

const UPSTREAM_VOLUMES = [
  ['scripts', 'keystone-scripts', 0o755],
  ['config-data', 'keystone-config-data', 0o644],
  ['fernet-keys', 'keystone', undefined],
  ['credential-keys', 'keystone', undefined],
];
const UPSTREAM_API_MOUNTS = [
  ['scripts', '/usr/local/bin/container-scripts', undefined, true],
  ['config-data', '/var/lib/config-data/default', undefined, false],
  ['config-data', '/var/lib/kolla/config_files/config.json', 'keystone-api-config.json', true],
  ['fernet-keys', '/etc/keystone/fernet-keys', undefined, true],
  ['credential-keys', '/etc/keystone/credential-keys', undefined, true],
];

describe("upstream's keystone pod specs", () => {
  it('keystone-api: command /bin/bash, args -c kolla_start, upstream volumes and mounts in order', () => {
    const d = buildKeystoneDeployment(cr, spec, 'h', {}) as Json;
    expect(firstContainerOf(d)['name']).toBe('keystone-api');
    expect(firstContainerOf(d)['command']).toEqual(['/bin/bash']);
    expect(firstContainerOf(d)['args']).toEqual(['-c', '/usr/local/bin/kolla_start']);
    expect(volumes(d)).toEqual(UPSTREAM_VOLUMES);
    expect(mounts(d)).toEqual(UPSTREAM_API_MOUNTS);
    expect((podTemplateOf(d)['metadata'] as Json)['labels']).toEqual({
      service: 'keystone',
      owner: 'keystone',
    });
  });

  it('keystone-db-sync: command /bin/bash, args -c db_sync, keystone.conf and my.cnf mounts, unlabelled pods', () => {
    const job = buildDbSyncJob(input) as unknown as Json;
    expect(firstContainerOf(job)['command']).toEqual(['/bin/bash']);
    expect(firstContainerOf(job)['args']).toEqual(['-c', 'keystone-manage db_sync']);
    expect(volumes(job)).toEqual(UPSTREAM_VOLUMES);
    expect(mounts(job)).toEqual([
      ['config-data', '/etc/keystone/keystone.conf', 'keystone.conf', true],
      ['config-data', '/etc/my.cnf', 'my.cnf', true],
    ]);
    expect((job['metadata'] as Json)['labels']).toEqual({ service: 'keystone', owner: 'keystone' });
    expect((podTemplateOf(job)['metadata'] as Json)['labels']).toBeUndefined();
  });

  it('keystone-bootstrap: command /bin/bash, args -c kolla_set_configs && bootstrap, the API mounts, unlabelled pods', () => {
    const job = buildBootstrapJob(input, { internal: 'i', public: 'p' }) as unknown as Json;
    expect(firstContainerOf(job)['command']).toEqual(['/bin/bash']);
    expect(firstContainerOf(job)['args']).toEqual([
      '-c',
      '/usr/local/bin/kolla_set_configs && keystone-manage bootstrap',
    ]);
    expect(volumes(job)).toEqual(UPSTREAM_VOLUMES);
    expect(mounts(job)).toEqual(UPSTREAM_API_MOUNTS);
    expect((podTemplateOf(job)['metadata'] as Json)['labels']).toBeUndefined();
  });

  it('keystone-cron: trust_flush command, labels on the Job template only, upstream mounts', () => {
    const cron = buildTrustFlushCronJob(cr, spec, {}) as Json;
    expect((cron['metadata'] as Json)['labels']).toBeUndefined();
    const jobTemplate = (cron['spec'] as Json)['jobTemplate'] as Json;
    expect((jobTemplate['metadata'] as Json)['labels']).toEqual({ service: 'keystone', owner: 'keystone' });
    expect(podTemplateOf(cron)['metadata']).toBeUndefined();
    expect(firstContainerOf(cron)['command']).toEqual(['keystone-manage', 'trust_flush']);
    expect(firstContainerOf(cron)['args']).toBeUndefined();
    expect(volumes(cron)).toEqual(UPSTREAM_VOLUMES);
    expect(mounts(cron)).toEqual([
      ['config-data', '/etc/keystone/keystone.conf', 'keystone.conf', true],
      ['config-data', '/etc/my.cnf', 'my.cnf', true],
      ['fernet-keys', '/etc/keystone/fernet-keys', undefined, true],
    ]);
  });

  it('<name>-scripts exists (empty for keystone, as upstream renders it)', () => {
    const s = buildScriptsSecret(cr) as Json;
    expect((s['metadata'] as Json)['name']).toBe('keystone-scripts');
    expect(s['data'] ?? {}).toEqual({});
  });
});
