import { fileURLToPath } from 'node:url';
import { createKubeClient, Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { pipeline } from '@stackops/lib-common/pipeline';
import { CRD_SCHEMA_CONDITION, CRD_SCHEMA_REASON, type Manager } from '@stackops/lib-common/runtime';
import {
  createTestNamespace,
  installCrds,
  loadTestKubeConfig,
  readCrds,
  startTestManager,
  type TestNamespace,
  waitFor,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * docs/migrating-from-upstream.md, steps B2–B5 (and what step A4 guards against), on a real API server: from the Go operator's
 * CRD, webhook and CR to stackops' CRD with the CR intact.
 */

const UPSTREAM_CRD = fileURLToPath(new URL('./fixtures/upstream-keystoneapis.yaml', import.meta.url));
const OUR_CRD = fileURLToPath(
  new URL('../../../charts/keystone-operator/crds/keystone.openstack.org_keystoneapis.yaml', import.meta.url),
);
const KeystoneAPIKind = {
  group: 'keystone.openstack.org',
  version: 'v1beta1',
  kind: 'KeystoneAPI',
  plural: 'keystoneapis',
  namespaced: true,
} as const;
const WEBHOOK = 'vkeystoneapi.kb.io';

let client: RestKubeClient;
let ns: TestNamespace;
let operatorNs: TestNamespace;

/** A KeystoneAPI as openstack-operator's tooling writes it, as the Go operator left it. */
const upstreamSpec = {
  containerImage: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
  databaseInstance: 'openstack',
  databaseAccount: 'keystone',
  memcachedInstance: 'memcached',
  region: 'regionOne',
  adminProject: 'admin',
  adminUser: 'admin',
  replicas: 1,
  secret: 'osp-secret',
  passwordSelectors: { admin: 'AdminPassword' },
  enableSecureRBAC: true,
  trustFlushSchedule: '1 * * * *',
  fernetRotationDays: 1,
  fernetMaxActiveKeys: 5,
  apiTimeout: 60,
};
const upstreamStatus = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: 'Setup complete',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
  hash: { input: 'n5c8h5b7h66dh', dbsync: 'n65bh', bootstrap: 'n5d4h' },
  apiEndpoints: {
    internal: 'http://keystone-internal.openstack.svc:5000',
    public: 'http://keystone-public.openstack.svc:5000',
  },
  databaseHostname: 'openstack.openstack.svc',
  readyCount: 1,
  observedGeneration: 1,
  region: 'regionOne',
};

async function createAsGoOperatorLeftIt(name: string, spec: Record<string, unknown>): Promise<KubeObject> {
  await client.create(KeystoneAPIKind, {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name, namespace: ns.name, finalizers: ['openstack.org/keystoneapi'] },
    spec,
  });
  return client.patch(KeystoneAPIKind, { name, namespace: ns.name }, { status: upstreamStatus }, 'merge', {
    subresource: 'status',
  });
}

const relabel = (name: string, value: string) =>
  client.patch(
    KeystoneAPIKind,
    { name, namespace: ns.name },
    { metadata: { labels: { step: value } } },
    'merge',
  );
const changeReplicas = (name: string, replicas: number) =>
  client.patch(KeystoneAPIKind, { name, namespace: ns.name }, { spec: { replicas } }, 'merge');

/** Replaces the live keystoneapis CRD with the one in `file` (as `kubectl replace`), Established. */
async function replaceCrd(file: string): Promise<void> {
  const [crd] = readCrds(file);
  const live = await client.get(Kinds.CustomResourceDefinition, {
    name: 'keystoneapis.keystone.openstack.org',
  });
  await client.replace(Kinds.CustomResourceDefinition, {
    ...crd!,
    metadata: { ...crd!.metadata, resourceVersion: live?.metadata.resourceVersion },
  });
  await installCrds(client, file);
}

beforeAll(async () => {
  client = createKubeClient(loadTestKubeConfig(), { fieldManager: 'migration-test' });
  await installCrds(client, UPSTREAM_CRD);
  ns = await createTestNamespace(client, 'migration');
  operatorNs = await createTestNamespace(client, 'openstack-operators');
  await createAsGoOperatorLeftIt('keystone', upstreamSpec);
  await createAsGoOperatorLeftIt('keystone-notifications', {
    ...upstreamSpec,
    rabbitMqClusterName: 'rabbitmq',
  });
  // The Go operator and its webhook (its Service has no endpoints once the operator is gone).
  await client.create(Kinds.Deployment, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'keystone-operator-controller-manager', namespace: operatorNs.name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'keystone-operator' } },
      template: {
        metadata: { labels: { app: 'keystone-operator' } },
        spec: {
          containers: [
            { name: 'manager', image: 'quay.io/openstack-k8s-operators/keystone-operator:latest' },
          ],
        },
      },
    },
  });
  await client.create(Kinds.ValidatingWebhookConfiguration, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: `${WEBHOOK}-x7k2p` },
    webhooks: [
      {
        name: WEBHOOK,
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        clientConfig: {
          service: {
            name: 'keystone-operator-webhook-service',
            namespace: operatorNs.name,
            path: '/validate',
            port: 443,
          },
        },
        rules: [
          {
            apiGroups: ['keystone.openstack.org'],
            apiVersions: ['v1beta1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['keystoneapis'],
          },
        ],
      },
    ],
  });
});

afterAll(async () => {
  await client?.delete(Kinds.ValidatingWebhookConfiguration, { name: `${WEBHOOK}-x7k2p` }).catch(() => false);
  await ns?.delete();
  await operatorNs?.delete();
  client?.close();
});

describe('migrating from the Go keystone-operator (docs/migrating-from-upstream.md)', () => {
  it('steps B2–B5: operator away, webhook removed, CRD replaced; the CRs keep spec, status and finalizer', async () => {
    // Step 2. With the operator gone its webhook would refuse every update (why step 3 exists);
    // kube-env's API server runs without webhook admission, so that refusal is not shown here.
    await client.patch(
      Kinds.Deployment,
      { name: 'keystone-operator-controller-manager', namespace: operatorNs.name },
      { spec: { replicas: 0 } },
      'merge',
    );

    // Step 3: the webhook configurations that name keystone.openstack.org go.
    const configs = await client.list(Kinds.ValidatingWebhookConfiguration);
    const ours = configs.items.filter((c) =>
      ((c['webhooks'] as { rules?: { apiGroups?: string[] }[] }[] | undefined) ?? []).some((w) =>
        (w.rules ?? []).some((r) => (r.apiGroups ?? []).includes('keystone.openstack.org')),
      ),
    );
    expect(ours.map((c) => c.metadata.name)).toEqual([`${WEBHOOK}-x7k2p`]);
    for (const c of ours)
      await client.delete(Kinds.ValidatingWebhookConfiguration, { name: c.metadata.name ?? '' });

    // Step 4: `kubectl replace` of the CRD with stackops' (same name, same stored version).
    await replaceCrd(OUR_CRD);

    const cr = await client.get<KubeObject & { spec: object; status: object }>(KeystoneAPIKind, {
      name: 'keystone',
      namespace: ns.name,
    });
    expect(cr?.spec).toMatchObject(upstreamSpec);
    expect(cr?.status).toMatchObject(upstreamStatus);
    expect(cr?.metadata.finalizers).toEqual(['openstack.org/keystoneapi']);
    // Updates pass stackops' schema now.
    await relabel('keystone', 'after');
    await changeReplicas('keystone', 2);

    // Step 5: upstream's notification fields are implemented (ADR 0022): such a CR takes updates as is.
    await changeReplicas('keystone-notifications', 2);
    const notifications = await client.get<KubeObject & { spec: { rabbitMqClusterName?: string } }>(
      KeystoneAPIKind,
      { name: 'keystone-notifications', namespace: ns.name },
    );
    expect(notifications?.spec.rabbitMqClusterName).toBe('rabbitmq');
  });
});

type Condition = { type: string; status: string; severity?: string; message?: string };
type Event = KubeObject & { type?: string; reason?: string; involvedObject?: { name?: string } };

describe('after the switch, another installer puts the upstream KeystoneAPI schema back (ADR 0037)', () => {
  let manager: Manager | undefined;
  afterAll(async () => {
    await manager?.stop();
  });

  type Cr = KubeObject & { status?: { conditions?: Condition[] } };
  const conditionsOf = async (name: string): Promise<Condition[]> =>
    (await client.get<Cr>(KeystoneAPIKind, { name, namespace: ns.name }))?.status?.conditions ?? [];
  /** Waits until the CR's conditions satisfy `ok`. */
  const until = (name: string, description: string, ok: (conditions: Condition[]) => boolean) =>
    waitFor<Cr>(
      client,
      KeystoneAPIKind,
      { name, namespace: ns.name },
      (o) => ok(o?.status?.conditions ?? []),
      {
        description: `${name}: ${description}`,
      },
    );
  const hasSchemaCondition = (conditions: Condition[]) =>
    conditions.some((c) => c.type === CRD_SCHEMA_CONDITION);
  const schemaEvents = async (): Promise<Event[]> =>
    (await client.list<Event>(Kinds.Event, { namespace: ns.name })).items.filter(
      (e) => e.reason === CRD_SCHEMA_REASON,
    );

  it('each KeystoneAPI gets a Warning condition (Ready untouched) and one Event; re-applying our CRD clears it with no Event', async () => {
    // The operator as main.ts wires it: its own CRDs as its chart ships them, and a pipeline of the kind.
    manager = await startTestManager({ name: 'keystone-operator', namespaces: [ns.name] }, (m) => {
      m.watchOwnCrds(() => readCrds(OUR_CRD), 'keystone-operator');
      m.controller({ for: KeystoneAPIKind }).reconcile(
        pipeline({ kind: KeystoneAPIKind, conditions: [], steps: [] }),
      );
    });
    const names = ['keystone', 'keystone-notifications'];
    for (const name of names)
      await until(name, 'Ready True', (cs) => cs.some((c) => c.type === 'Ready' && c.status === 'True'));
    for (const name of names)
      expect((await conditionsOf(name)).map((c) => c.type)).not.toContain(CRD_SCHEMA_CONDITION);

    // openstack-operator's next upgrade re-applies its bundled CRD.
    await replaceCrd(UPSTREAM_CRD);
    for (const name of names) {
      await until(name, `${CRD_SCHEMA_CONDITION} set`, hasSchemaCondition);
      const conditions = await conditionsOf(name);
      expect(conditions.find((c) => c.type === CRD_SCHEMA_CONDITION)).toMatchObject({
        status: 'False',
        severity: 'Warning',
        reason: CRD_SCHEMA_REASON,
        message: expect.stringMatching(
          /^CustomResourceDefinition keystoneapis\.keystone\.openstack\.org is not the schema this operator was built for \(v1beta1: \d+ of our \d+ validation rules are missing.*another installer re-applied an older or upstream schema.*kubectl replace -f charts\/keystone-operator\/crds\/\)$/,
        ),
      });
      expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
    // Events are sent after the status write, without holding the worker.
    await manager.controllerNamed('keystoneapi')?.whenIdle();
    const events = await schemaEvents();
    expect(events.map((e) => [e.type, e.involvedObject?.name]).sort()).toEqual(
      names.map((n) => ['Warning', n]).sort(),
    );

    // Re-applying our chart's CRDs puts things right: the condition goes, nothing else is said.
    await replaceCrd(OUR_CRD);
    for (const name of names)
      await until(name, `${CRD_SCHEMA_CONDITION} cleared`, (cs) => !hasSchemaCondition(cs));
    await manager.controllerNamed('keystoneapi')?.whenIdle();
    expect((await schemaEvents()).length).toBe(events.length);
    for (const name of names)
      expect((await conditionsOf(name)).find((c) => c.type === 'Ready')?.status).toBe('True');
  });
});
