import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { getObject, useOperator } from './support/harness.js';
import {
  conditionOf,
  createDatabaseService,
  createInputSecret,
  createKeystone,
  createMemcachedService,
  isReady,
  OSP_SECRET_DATA,
  patchKeystoneSpec,
  preparedNamespace,
  readyKeystone,
  waitForKeystone,
  waitForKeystoneCondition,
  waitForKeystoneReady,
} from './support/keystone.js';

type Workload = KubeObject & {
  spec: {
    replicas?: number;
    template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } };
  };
};

const configHashOf = (d: Workload | undefined) =>
  d?.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'CONFIG_HASH')?.value;

describe('KeystoneAPI lifecycle (upstream functional scenarios)', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('without its Secret: defaults, initial conditions, finalizer, InputReady False; recovers when the Secret appears', async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    await createDatabaseService(client, ns);
    await createMemcachedService(client, ns);
    await createKeystone(client, ns, {});
    const cr = await waitForKeystoneCondition(client, ns, 'InputReady', 'False');
    expect(cr.spec).toMatchObject({
      databaseInstance: 'openstack',
      databaseAccount: 'keystone',
      replicas: 1,
    });
    expect(cr.metadata.finalizers).toEqual(['openstack.org/keystoneapi']);
    expect(conditionOf(cr, 'InputReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
      message: 'Input data resources missing: Secret osp-secret',
    });
    expect(conditionOf(cr, 'Ready')?.status).toBe('False');
    for (const t of [
      'DBReady',
      'DBSyncReady',
      'ServiceConfigReady',
      'CreateServiceReady',
      'BootstrapReady',
      'DeploymentReady',
      'NetworkAttachmentsReady',
      'CronJobReady',
    ]) {
      expect(conditionOf(cr, t), t).toMatchObject({ status: 'Unknown', reason: 'Init' });
    }
    expect(cr.status?.readyCount ?? 0).toBe(0);
    expect(cr.status?.databaseHostname ?? '').toBe('');
    await createInputSecret(client, ns);
    await waitForKeystoneReady(client, ns);
  });

  it('a Secret without a key names the key; adding it recovers', async () => {
    const { client } = suite;
    // AdminPassword is required; the database password is not (it is generated when absent).
    const { AdminPassword: _omitted, ...partial } = OSP_SECRET_DATA;
    const ns = await preparedNamespace(suite, partial);
    await createKeystone(client, ns, {});
    const cr = await waitForKeystone(client, ns, 'InputReady names the key', (c) =>
      (conditionOf(c, 'InputReady')?.message ?? '').includes('AdminPassword'),
    );
    expect(conditionOf(cr, 'InputReady')?.message).toBe(
      `Input data error occurred missing key AdminPassword in Secret ${ns}/osp-secret`,
    );
    await client.patch(
      Kinds.Secret,
      { name: 'osp-secret', namespace: ns },
      { stringData: { AdminPassword: 'pw' } },
      'merge',
    );
    await waitForKeystoneReady(client, ns);
  });

  it('rejects a password with a shell expansion with upstream message', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite, {
      ...OSP_SECRET_DATA,
      AdminPassword: 'c^sometext02%text%text02$someText&',
    });
    await createKeystone(client, ns, {});
    const cr = await waitForKeystone(
      client,
      ns,
      'InputReady error',
      (c) => conditionOf(c, 'InputReady')?.reason === 'Error',
    );
    expect(conditionOf(cr, 'InputReady')?.message).toBe(
      'Input data error occurred password does not meet the requirements',
    );
  });

  it('writes keystone.conf, my.cnf, the keys and clouds.yaml; a config change rolls pods and re-runs nothing else', async () => {
    const { client, ns, ready } = await readyKeystone(suite, {
      customServiceConfig: '[DEFAULT]\ndebug = true',
    });
    const config = await getObject<KubeObject & { data: Record<string, string> }>(
      client,
      Kinds.Secret,
      ns,
      'keystone-config-data',
    );
    const file = (k: string) => Buffer.from(config?.data[k] ?? '', 'base64').toString();
    expect(file('keystone.conf')).toContain(
      `connection=mysql+pymysql://keystone:keystone-db-pw@openstack.${ns}.svc/keystone?read_default_file=/etc/my.cnf`,
    );
    expect(file('my.cnf')).toBe('[client]\nssl=0');
    expect(file('custom.conf')).toBe('[DEFAULT]\ndebug = true');
    const keys = await getObject<KubeObject & { data: Record<string, string> }>(
      client,
      Kinds.Secret,
      ns,
      'keystone',
    );
    expect(Object.keys(keys?.data ?? {}).sort()).toEqual([
      'CredentialKeys0',
      'CredentialKeys1',
      'FernetKeys0',
      'FernetKeys1',
      'FernetKeys2',
      'FernetKeys3',
      'FernetKeys4',
    ]);
    const clouds = await getObject<KubeObject & { data: Record<string, string> }>(
      client,
      Kinds.ConfigMap,
      ns,
      'openstack-config',
    );
    expect(clouds?.data['clouds.yaml']).toContain(`auth_url: http://keystone-public.${ns}.svc:5000`);
    expect(await getObject(client, Kinds.Secret, ns, 'openstack-config-secret')).toBeDefined();
    expect(await getObject(client, Kinds.CronJob, ns, 'keystone-cron')).toBeDefined();
    for (const n of ['keystone-keystone', 'keystone-keystone-role', 'keystone-keystone-rolebinding']) {
      const kind = n.endsWith('-role')
        ? Kinds.Role
        : n.endsWith('-rolebinding')
          ? Kinds.RoleBinding
          : Kinds.ServiceAccount;
      expect(await getObject(client, kind, ns, n), n).toBeDefined();
    }

    const before = await getObject<Workload>(client, Kinds.Deployment, ns, 'keystone');
    const jobsBefore = await client.list(Kinds.Job, { namespace: ns });
    const hash = configHashOf(before);
    expect(hash).toBe(ready.status?.hash?.['input']);

    await patchKeystoneSpec(client, ns, { customServiceConfig: '[DEFAULT]\ndebug = false' });
    const after = await waitUntil('a new CONFIG_HASH', async () => {
      const d = await getObject<Workload>(client, Kinds.Deployment, ns, 'keystone');
      return configHashOf(d) !== hash ? d : undefined;
    });
    const rolled = await waitForKeystoneReady(client, ns);
    expect(configHashOf(after)).toBe(rolled.status?.hash?.['input']);
    const jobsAfter = await client.list(Kinds.Job, { namespace: ns });
    const uids = (l: typeof jobsBefore) => l.items.map((j) => `${j.metadata.name}:${j.metadata.uid}`).sort();
    expect(uids(jobsAfter)).toEqual(uids(jobsBefore));
    expect(rolled.status?.hash?.['dbsync']).toBe(ready.status?.hash?.['dbsync']);
    expect(rolled.status?.hash?.['bootstrap']).toBe(ready.status?.hash?.['bootstrap']);
  });

  it('scales 3 → 1 → 0 → 1, reporting readyCount; 0 replicas is Ready', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    await createKeystone(client, ns, { replicas: 3 });
    for (const replicas of [3, 1, 0, 1]) {
      await patchKeystoneSpec(client, ns, { replicas });
      const cr = await waitForKeystone(
        client,
        ns,
        `Ready with ${replicas} replicas`,
        (c) => isReady(c) && c.status?.readyCount === replicas,
        { timeoutMs: 90_000 },
      );
      expect(conditionOf(cr, 'DeploymentReady')?.status).toBe('True');
      const d = await getObject<Workload>(client, Kinds.Deployment, ns, 'keystone');
      expect(d?.spec.replicas).toBe(replicas);
    }
  });

  it('a rollout that cannot finish keeps DeploymentReady False "Deployment in progress"; Ready once it can', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    // More CPU than any node has: the API pods stay Pending (the Jobs do not ask for resources).
    await createKeystone(client, ns, { resources: { requests: { cpu: '64' } } });
    const cr = await waitForKeystoneCondition(client, ns, 'DeploymentReady', 'False');
    expect(conditionOf(cr, 'DeploymentReady')).toMatchObject({
      reason: 'Requested',
      severity: 'Info',
      message: 'Deployment in progress',
    });
    expect(conditionOf(cr, 'Ready')).toMatchObject({ status: 'False', message: 'Deployment in progress' });
    expect(conditionOf(cr, 'BootstrapReady')?.status).toBe('True');
    await patchKeystoneSpec(client, ns, { resources: { requests: { cpu: '100m' } } });
    await waitForKeystoneReady(client, ns);
  });

  it('deleting the KeystoneAPI removes it and everything it created', async () => {
    const { client, ns } = await readyKeystone(suite);
    await client.delete(KeystoneKinds.KeystoneAPI, { name: 'keystone', namespace: ns });
    await waitUntil('KeystoneAPI gone', async () =>
      (await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { name: 'keystone', namespace: ns }))
        ? undefined
        : true,
    );
    const owned = [
      Kinds.Deployment,
      Kinds.Job,
      Kinds.CronJob,
      Kinds.Service,
      Kinds.ConfigMap,
      Kinds.ServiceAccount,
    ];
    await waitUntil(
      'owned objects garbage-collected',
      async () => {
        for (const kind of owned) {
          const items = (await client.list(kind, { namespace: ns })).items.filter((o) =>
            o.metadata.ownerReferences?.some((r) => r.kind === 'KeystoneAPI'),
          );
          if (items.length > 0) return undefined;
        }
        const secrets = (await client.list(Kinds.Secret, { namespace: ns })).items.map(
          (s) => s.metadata.name,
        );
        return !secrets.includes('keystone') && !secrets.includes('keystone-config-data') ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(await getObject(client, Kinds.Service, ns, 'openstack')).toBeDefined();
  });

  it('deletion waits while a KeystoneService/KeystoneEndpoint still holds its finalizer on the KeystoneAPI', async () => {
    const { client, ns, ready } = await readyKeystone(suite);
    const ref = { name: 'keystone', namespace: ns };
    const dependant = 'openstack.org/keystoneservice-placement';
    await client.patch(
      KeystoneKinds.KeystoneAPI,
      ref,
      { metadata: { finalizers: [...(ready.metadata.finalizers ?? []), dependant] } },
      'merge',
    );
    await client.delete(KeystoneKinds.KeystoneAPI, ref);
    // Give the operator time to (wrongly) drop its finalizer: it must keep it while the dependant's is there.
    await new Promise((r) => setTimeout(r, 2_000));
    const waiting = await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref);
    expect(waiting?.metadata.deletionTimestamp).toBeDefined();
    expect(waiting?.metadata.finalizers).toEqual(['openstack.org/keystoneapi', dependant]);
    await client.patch(
      KeystoneKinds.KeystoneAPI,
      ref,
      { metadata: { finalizers: ['openstack.org/keystoneapi'] } },
      'merge',
    );
    await waitUntil('KeystoneAPI gone', async () =>
      (await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, ref)) ? undefined : true,
    );
  });

  it('deleting the namespace completes', async () => {
    const { client, ns } = await readyKeystone(suite);
    await client.delete(Kinds.Namespace, { name: ns });
    await waitUntil(
      'namespace gone',
      async () => ((await client.get(Kinds.Namespace, { name: ns })) ? undefined : true),
      {
        timeoutMs: 90_000,
      },
    );
  });
});
