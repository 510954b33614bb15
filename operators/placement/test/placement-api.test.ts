import { type KeystoneEndpoint, KeystoneKinds, type KeystoneService } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  PAUSED_AS_DOCUMENTED,
  pausedRoundTrip,
  scaledDeployment,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  conditionOf,
  configFile,
  createDatabaseService,
  createPlacementAPI,
  createPrerequisites,
  createReadyKeystoneAPI,
  createSecret,
  getPlacementAPI,
  simulateKeystoneRegistration,
  waitForCondition,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

/**
 * Upstream placement-operator's functional scenarios on the real control plane, with KeystoneAPI
 * and the keystone children's readiness simulated the way upstream's tests do; controller-manager
 * and kwok run the Deployment and the Jobs for real.
 */

interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    serviceAccountName: string;
    containers: { name: string; image: string; env?: { name: string; value?: string }[] }[];
    volumes: { name: string }[];
  };
}
type Deployment = KubeObject & {
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: PodTemplate };
};
type Job = KubeObject & { spec: { template: PodTemplate } };
type Service = KubeObject & { spec: { type: string; ports: { name: string; port: number }[] } };
type Role = KubeObject & { rules: { resources: string[] }[] };

const suite = useOperator({ beforeAll, afterAll }, 7);
const ns = (i: number) => suite.namespaces[i]!;

describe('a PlacementAPI without its inputs', () => {
  it('is defaulted by the schema, gets the finalizer and reports the missing Secret', async () => {
    const client = suite.client;
    const created = await createPlacementAPI(client, ns(0));
    expect(created.spec).toMatchObject({
      databaseAccount: 'placement',
      serviceUser: 'placement',
      replicas: 1,
      apiTimeout: 60,
      preserveJobs: false,
      passwordSelectors: { service: 'PlacementPassword' },
    });
    const cr = await waitForCondition(client, ns(0), 'InputReady', 'False', {
      message: 'Input data resources missing: Secret osp-secret',
    });
    expect(cr.metadata.finalizers).toEqual(['openstack.org/placementapi']);
    expect(conditionOf(cr, 'Ready')).toMatchObject({
      status: 'False',
      message: 'Input data resources missing: Secret osp-secret',
    });
    for (const t of [
      'DBReady',
      'ServiceConfigReady',
      'DBSyncReady',
      'DeploymentReady',
      'KeystoneServiceReady',
    ]) {
      expect(conditionOf(cr, t)?.status, t).toBe('Unknown');
    }
    expect(conditionOf(cr, 'KeystoneEndpointReady')?.message).toBe('KeystoneEndpoint not created');
    expect(cr.status?.observedGeneration).toBe(cr.metadata.generation);
    expect(await configFile(client, ns(0), 'placement.conf')).toBeUndefined();
  });

  it('names every key missing from the Secret, in the condition and an Event', async () => {
    const client = suite.client;
    await createSecret(client, ns(0), { DbRootPassword: 'x' });
    const cr = await waitForCondition(client, ns(0), 'InputReady', 'False', { message: /field not found/ });
    expect(conditionOf(cr, 'InputReady')).toMatchObject({
      reason: 'Error',
      severity: 'Warning',
      message:
        "Input data error occurred field not found in Secret: field 'PlacementPassword' not found in secret/osp-secret",
    });
    const events = await waitUntil('the InputError Event', async () => {
      const list = await client.list<KubeObject & { reason: string; message: string }>(Kinds.Event, {
        namespace: ns(0),
      });
      return list.items.find((e) => e.reason === 'InputError');
    });
    expect(events.message).toContain("field 'PlacementPassword'");
    expect(events.message).not.toContain('x');
  });
});

describe('the full reconcile with a Ready KeystoneAPI', () => {
  it('creates database, config, RBAC, Services, db-sync, Deployment, then the keystone children, and gets Ready', async () => {
    const client = suite.client;
    const n = ns(1);
    await createPrerequisites(client, n);
    await createPlacementAPI(client, n, { customServiceConfig: '[DEFAULT]\ndebug = false\n' });

    const dbReady = await waitForCondition(client, n, 'DBReady', 'True', { timeoutMs: 90_000 });
    expect(dbReady.status?.databaseHostname).toBe(`openstack.${n}.svc`);
    const dbCreate = await client.get<Job>(Kinds.Job, { name: 'placement-db-create', namespace: n });
    expect(dbCreate?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'PlacementAPI', controller: true });

    expect(conditionOf(dbReady, 'MariaDBAccountReady')?.message).toBe('MariaDBAccount creation complete');
    const account = await client.get<KubeObject & { data: Record<string, string> }>(Kinds.Secret, {
      name: 'placement-db-secret',
      namespace: n,
    });
    const dbPassword = Buffer.from(account?.data['DatabasePassword'] ?? '', 'base64').toString();
    expect(dbPassword).toMatch(/^[0-9a-f]{32}$/);
    const conf = await waitUntil('placement.conf', () => configFile(client, n, 'placement.conf'));
    expect(conf).toContain(
      `connection = mysql+pymysql://placement:${dbPassword}@openstack.${n}.svc/placement?read_default_file=/etc/my.cnf`,
    );
    expect(conf).toContain(`www_authenticate_uri = http://keystone-public.${n}.svc:5000`);
    expect(conf).toContain(`auth_url = http://keystone-internal.${n}.svc:5000`);
    expect(conf).toContain('region_name = regionOne');
    expect(conf).toContain('password = placement-pw');
    expect(await configFile(client, n, 'custom.conf')).toBe('[DEFAULT]\ndebug = false\n');
    expect(await configFile(client, n, 'my.cnf')).toBe('[client]\nssl=0');

    const sa = await client.get(Kinds.ServiceAccount, { name: 'placement-placement', namespace: n });
    expect(sa).toBeDefined();
    const role = await client.get<Role>(Kinds.Role, { name: 'placement-placement-role', namespace: n });
    expect(role?.rules.flatMap((r) => r.resources)).toEqual(['securitycontextconstraints']);
    expect(
      await client.get(Kinds.RoleBinding, { name: 'placement-placement-rolebinding', namespace: n }),
    ).toBeDefined();

    for (const endpoint of ['internal', 'public']) {
      const svc = await waitUntil(`Service placement-${endpoint}`, () =>
        client.get<Service>(Kinds.Service, { name: `placement-${endpoint}`, namespace: n }),
      );
      expect(svc.metadata.labels).toMatchObject({ service: 'placement', owner: 'placement', endpoint });
      expect(svc.spec.ports).toEqual([
        expect.objectContaining({ name: `placement-${endpoint}`, port: 8778 }),
      ]);
    }
    const svcPublic = await client.get(Kinds.Service, { name: 'placement-public', namespace: n });
    expect(svcPublic?.metadata.annotations?.['core.openstack.org/ingress_create']).toBe('true');

    const dbSync = await waitUntil('db-sync Job', () =>
      client.get<Job>(Kinds.Job, { name: 'placement-db-sync', namespace: n }),
    );
    expect(dbSync.spec.template.spec.containers[0]?.name).toBe('placement-db-sync');
    expect(dbSync.spec.template.spec.serviceAccountName).toBe('placement-placement');

    const deploy = await waitUntil('Deployment placement', () =>
      client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace: n }),
    );
    expect(deploy.spec.replicas).toBe(1);
    expect(deploy.spec.selector.matchLabels).toEqual({ service: 'placement', owner: 'placement' });
    expect(deploy.spec.template.spec.containers.map((c) => c.name)).toEqual([
      'placement-log',
      'placement-api',
    ]);
    expect(deploy.spec.template.metadata.annotations?.['k8s.v1.cni.cncf.io/networks']).toBe('[]');

    await simulateKeystoneRegistration(client, n);
    const ready = await waitForCondition(client, n, 'Ready', 'True', { timeoutMs: 90_000 });
    expect(conditionOf(ready, 'Ready')?.message).toBe('Setup complete');
    expect(conditionOf(ready, 'KeystoneServiceReady')?.message).toBe('Setup complete');
    expect(ready.status).toMatchObject({
      readyCount: 1,
      apiEndpoints: {
        internal: `http://placement-internal.${n}.svc:8778`,
        public: `http://placement-public.${n}.svc:8778`,
      },
      databaseHostname: `openstack.${n}.svc`,
    });
    expect(ready.status?.hash?.['input']).toMatch(/^[a-z0-9]{54}$/);
    expect(ready.status?.hash?.['dbsync']).toBeDefined();
    const configHash = (
      await client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace: n })
    )?.spec.template.spec.containers[1]?.env?.find((e) => e.name === 'CONFIG_HASH')?.value;
    expect(configHash).toBe(ready.status?.hash?.['input']);

    const ks = await client.get<KeystoneService>(KeystoneKinds.KeystoneService, {
      name: 'placement',
      namespace: n,
    });
    expect(ks?.spec).toEqual({
      serviceType: 'placement',
      serviceName: 'placement',
      serviceDescription: 'Placement Service',
      enabled: true,
      serviceUser: 'placement',
      secret: 'osp-secret',
      passwordSelector: 'PlacementPassword',
    });
    expect(ks?.metadata.finalizers).toContain('openstack.org/placementapi');
    const ep = await client.get<KeystoneEndpoint>(KeystoneKinds.KeystoneEndpoint, {
      name: 'placement',
      namespace: n,
    });
    expect(ep?.spec).toEqual({ serviceName: 'placement', endpoints: ready.status?.apiEndpoints });
    expect(ep?.metadata.finalizers).toContain('openstack.org/placementapi');
  });

  it('deletion takes its finalizer off the keystone children and garbage collection removes the rest', async () => {
    const client = suite.client;
    const n = ns(1);
    await client.delete(PlacementAPIKind, { name: 'placement', namespace: n });
    await waitUntil('PlacementAPI gone', async () => !(await getPlacementAPI(client, n)));
    await waitUntil(
      'children garbage-collected',
      async () =>
        !(await client.get(Kinds.Deployment, { name: 'placement', namespace: n })) &&
        !(await client.get(KeystoneKinds.KeystoneService, { name: 'placement', namespace: n })) &&
        !(await client.get(KeystoneKinds.KeystoneEndpoint, { name: 'placement', namespace: n })) &&
        !(await client.get(Kinds.Secret, { name: 'placement-config-data', namespace: n })),
      { timeoutMs: 60_000 },
    );
    // The input Secret is the user's: kept.
    expect(await client.get(Kinds.Secret, { name: 'osp-secret', namespace: n })).toBeDefined();
  });
});

describe('replicas 0', () => {
  it('counts as deployed with readyCount 0', async () => {
    const client = suite.client;
    const n = ns(2);
    await createPrerequisites(client, n);
    await createPlacementAPI(client, n, { replicas: 0 });
    const cr = await waitForCondition(client, n, 'DeploymentReady', 'True', { timeoutMs: 90_000 });
    expect(cr.status?.readyCount).toBe(0);
  });
});

describe('waiting for what is not there yet', () => {
  it('reports the missing database Service, then the missing KeystoneAPI, then goes on', async () => {
    const client = suite.client;
    const n = ns(3);
    await createSecret(client, n);
    await createPlacementAPI(client, n);
    await waitForCondition(client, n, 'DBReady', 'False', {
      message: 'DB create waiting for the database Service openstack',
    });
    await createDatabaseService(client, n);
    await waitForCondition(client, n, 'ServiceConfigReady', 'False', {
      timeoutMs: 90_000,
      message: /KeystoneAPI/,
    });
    await createReadyKeystoneAPI(client, n);
    await waitForCondition(client, n, 'ServiceConfigReady', 'True', { timeoutMs: 30_000 });
  });
});

describe('the openstack.org/paused annotation', () => {
  it('an empty value pauses too: nothing written while set, a condition and Events say so, put right once removed', async () => {
    const client = suite.client;
    const n = ns(6);
    await createPrerequisites(client, n);
    await createPlacementAPI(client, n);
    const deployment = { namespace: n, name: 'placement' };
    await waitUntil('Deployment placement', () => client.get(Kinds.Deployment, deployment));
    await simulateKeystoneRegistration(client, n);
    await waitForCondition(client, n, 'Ready', 'True', { timeoutMs: 90_000 });
    const outcome = await pausedRoundTrip({
      client,
      operatorClient: suite.operator.manager.client,
      kind: PlacementAPIKind,
      ref: { namespace: n, name: 'placement' },
      namespaces: [n],
      value: '',
      ...scaledDeployment(client, deployment),
    });
    expect(outcome).toEqual(PAUSED_AS_DOCUMENTED);
  });
});
