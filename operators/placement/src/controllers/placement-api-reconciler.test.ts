import { KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  base64,
  conditionOf as conditionIn,
  expectPdbFollowsReplicas,
  FakeKubeClient,
  fakeSecretText,
  setSecretData,
  simulateControllerManager,
  stepFailure,
} from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import {
  placementCondition as conditionOf,
  FAKE_PLACEMENT,
  reconcilePlacement as reconcile,
  unreconciledPlacementAPI,
} from '../../test/fixtures.js';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import { defaultsFromEnv } from '../config/defaults.js';
import { placementApiReconciler } from './placement-api-reconciler.js';

const ref = FAKE_PLACEMENT;
const NS = ref.namespace;
const ready = () => [
  {
    type: 'Ready',
    status: 'True',
    reason: 'Ready',
    message: 'Setup complete',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  },
];

const ospSecret = (data: Record<string, string>): KubeObject =>
  ({ metadata: { name: 'osp-secret', namespace: NS }, data }) as KubeObject;

const fullSecret = () =>
  ospSecret({
    PlacementPassword: base64('placement-pw\n'),
    PlacementDatabasePassword: base64('db-pw'),
    DbRootPassword: base64('root-pw'),
  });

/** install_yamls' osp-secret as it is today: no PlacementDatabasePassword (upstream uses MariaDBAccount). */
const todaysOspSecret = () =>
  ospSecret({
    PlacementPassword: base64('placement-pw'),
    DbRootPassword: base64('root-pw'),
    AdminPassword: base64('a'),
  });

const secretData = (fake: FakeKubeClient, name: string, key: string) =>
  fakeSecretText(fake, { namespace: NS, name }, key);

async function converge(fake: FakeKubeClient, passes = 8): Promise<void> {
  for (let i = 0; i < passes && conditionOf(fake, 'Ready')?.status !== 'True'; i++) {
    await reconcile(fake);
    await runOthers(fake);
  }
}

const seedDeployable = (
  fake: FakeKubeClient,
  cr: PlacementAPI = unreconciledPlacementAPI(),
  secret = fullSecret(),
) => {
  fake.seed(PlacementAPIKind, cr);
  fake.seed(Kinds.Secret, secret);
  fake.seed(Kinds.Service, { metadata: { name: 'openstack', namespace: NS } } as KubeObject);
  fake.seed(KeystoneKinds.KeystoneAPI, readyKeystoneAPI());
};

/** What keystone-operator publishes once Keystone runs. */
const readyKeystoneAPI = (): KubeObject =>
  ({
    metadata: { name: 'keystone', namespace: NS },
    spec: { secret: 'osp-secret' },
    status: {
      apiEndpoints: {
        internal: 'http://keystone-internal.openstack.svc:5000',
        public: 'http://keystone-public.openstack.svc:5000',
      },
      region: 'regionOne',
      conditions: ready(),
    },
  }) as KubeObject;

/** What kube-controller-manager and keystone-operator would do: Jobs complete, Deployments roll out, children Ready. */
async function runOthers(fake: FakeKubeClient): Promise<void> {
  await simulateControllerManager(fake);
  for (const kind of [KeystoneKinds.KeystoneService, KeystoneKinds.KeystoneEndpoint]) {
    for (const child of fake.all(kind)) {
      const status = { observedGeneration: child.metadata.generation, conditions: ready() };
      await fake.patch(kind, child.metadata as { name: string }, { status }, 'merge', {
        subresource: 'status',
      });
    }
  }
}

describe('PlacementAPI reconciler (steps on a fake API server)', () => {
  it('names every missing Secret key at once, in the condition and a Warning Event', async () => {
    const fake = new FakeKubeClient();
    const cr = unreconciledPlacementAPI();
    cr.spec.passwordSelectors = { service: 'PlacementPassword', database: 'MyDatabasePassword' };
    fake.seed(PlacementAPIKind, cr);
    fake.seed(Kinds.Secret, ospSecret({ PlacementPassword: base64('pw') }));
    const { result, events } = await reconcile(fake);
    const message =
      "Input data error occurred fields 'MyDatabasePassword', 'DbRootPassword' not found in secret/osp-secret";
    expect(conditionOf(fake, 'InputReady')).toMatchObject({ status: 'False', severity: 'Warning', message });
    expect(events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'InputError' }));
    // Not retried on a timer: the Secret watch brings the next pass.
    expect(result).toEqual({});
    expect(fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.metadata.finalizers).toEqual([
      'openstack.org/placementapi',
    ]);
  });

  it('waits for the KeystoneAPI before rendering its config', async () => {
    const fake = new FakeKubeClient();
    fake.seed(PlacementAPIKind, unreconciledPlacementAPI());
    fake.seed(Kinds.Secret, fullSecret());
    fake.seed(Kinds.Service, { metadata: { name: 'openstack', namespace: NS } } as KubeObject);
    await reconcile(fake);
    await runOthers(fake);
    await reconcile(fake);
    expect(conditionOf(fake, 'DBReady')?.status).toBe('True');
    expect(conditionOf(fake, 'ServiceConfigReady')).toMatchObject({
      status: 'False',
      message: 'Service config create error occurred no KeystoneAPI object found in namespace openstack',
    });
    expect(fake.peek(Kinds.Secret, { namespace: NS, name: 'placement-config-data' })).toBeUndefined();
  });

  it('while the db-create Job runs, writes its Services; CreateServiceReady still waits for DBReady', async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake);
    await reconcile(fake);
    expect(conditionOf(fake, 'DBReady')?.status).not.toBe('True');
    for (const name of ['placement-internal', 'placement-public'])
      expect(fake.peek(Kinds.Service, { namespace: NS, name })).toBeDefined();
    expect(conditionOf(fake, 'CreateServiceReady')).toMatchObject({ status: 'Unknown', reason: 'Init' });
    expect(fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.apiEndpoints).toBeUndefined();
    // The pass after the Job finds them up to date: the db-sync Job is its first write there.
    await runOthers(fake);
    const writes = fake.writes();
    await reconcile(fake);
    expect(conditionOf(fake, 'CreateServiceReady')?.status).toBe('True');
    expect(fake.writes() - writes).toBe(4); // two config Secrets, the db-sync Job, the status
  });

  it('converges to Ready with its keystone registration, then a pass writes nothing', async () => {
    const fake = new FakeKubeClient();
    fake.seed(PlacementAPIKind, unreconciledPlacementAPI());
    fake.seed(Kinds.Secret, fullSecret());
    fake.seed(Kinds.Service, { metadata: { name: 'openstack', namespace: NS } } as KubeObject);
    fake.seed(KeystoneKinds.KeystoneAPI, readyKeystoneAPI());
    let readyEvent = false;
    for (let i = 0; i < 8 && conditionOf(fake, 'Ready')?.status !== 'True'; i++) {
      const { events } = await reconcile(fake);
      readyEvent ||= events.some((e) => e.reason === 'Ready');
      await runOthers(fake);
    }
    expect(conditionOf(fake, 'Ready')?.status).toBe('True');
    expect(readyEvent).toBe(true);
    const endpoint = fake.peek<KubeObject & { spec: { endpoints: Record<string, string> } }>(
      KeystoneKinds.KeystoneEndpoint,
      { namespace: NS, name: 'placement' },
    );
    expect(endpoint?.spec.endpoints).toEqual({
      internal: 'http://placement-internal.openstack.svc:8778',
      public: 'http://placement-public.openstack.svc:8778',
    });
    expect(endpoint?.metadata.finalizers).toEqual(['openstack.org/placementapi']);
    // The service password lost its trailing newline, as every operator reads Secrets.
    const config = fake.peek<KubeObject & { data: Record<string, string> }>(Kinds.Secret, {
      namespace: NS,
      name: 'placement-config-data',
    });
    expect(Buffer.from(config?.data['placement.conf'] ?? '', 'base64').toString()).toContain(
      'password = placement-pw\n',
    );

    const writes = fake.writes();
    expect(await reconcile(fake)).toEqual({ result: {}, events: [] });
    expect(fake.writes()).toBe(writes);
  });

  it('with several replicas, owns a PodDisruptionBudget (maxUnavailable 1) and reports PDBReady; at one replica, deletes it', async () => {
    const fake = new FakeKubeClient();
    const cr = unreconciledPlacementAPI();
    seedDeployable(fake, { ...cr, spec: { ...cr.spec, replicas: 2 } });
    await expectPdbFollowsReplicas(fake, {
      kind: PlacementAPIKind,
      ref,
      service: 'placement',
      converge: () => converge(fake),
      reconcile: async () => {
        await reconcile(fake);
        await runOthers(fake);
      },
    });
  });

  it('deletion takes its finalizer off the keystone children, then off itself', async () => {
    const fake = new FakeKubeClient();
    const finalizers = ['openstack.org/placementapi'];
    fake.seed(PlacementAPIKind, {
      ...unreconciledPlacementAPI(),
      metadata: { ...unreconciledPlacementAPI().metadata, finalizers },
    });
    for (const kind of [KeystoneKinds.KeystoneService, KeystoneKinds.KeystoneEndpoint]) {
      fake.seed(kind, {
        metadata: { name: 'placement', namespace: NS, finalizers: [...finalizers, 'other'] },
      });
    }
    await fake.delete(PlacementAPIKind, ref);
    await reconcile(fake);
    expect(fake.peek(PlacementAPIKind, ref)).toBeUndefined();
    for (const kind of [KeystoneKinds.KeystoneService, KeystoneKinds.KeystoneEndpoint]) {
      expect(fake.peek(kind, { namespace: NS, name: 'placement' })?.metadata.finalizers).toEqual(['other']);
    }
  });
});

type JobView = KubeObject & {
  spec: {
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: {
        containers: {
          env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
        }[];
      };
    };
  };
};
const envRef = (job: JobView | undefined, name: string) =>
  job?.spec.template.spec.containers[0]?.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef;

describe("upstream's checks with upstream's input", () => {
  it("deploys with install_yamls' osp-secret as it is today: the account password is generated once into placement-db-secret", async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake, unreconciledPlacementAPI(), todaysOspSecret());
    await converge(fake);
    expect(conditionOf(fake, 'InputReady')?.status).toBe('True');
    expect(conditionOf(fake, 'MariaDBAccountReady')).toMatchObject({
      status: 'True',
      message: 'MariaDBAccount creation complete',
    });
    expect(conditionOf(fake, 'Ready')?.status).toBe('True');
    const generated = secretData(fake, 'placement-db-secret', 'DatabasePassword');
    expect(generated).toMatch(/^[0-9a-f]{32}$/);
    const owner = fake.peek(Kinds.Secret, { namespace: NS, name: 'placement-db-secret' })?.metadata
      .ownerReferences;
    expect(owner).toEqual([
      expect.objectContaining({ kind: 'PlacementAPI', name: 'placement', controller: true }),
    ]);
    const job = fake.peek<JobView>(Kinds.Job, { namespace: NS, name: 'placement-db-create' });
    expect(envRef(job, 'DB_PASSWORD')).toEqual({ name: 'placement-db-secret', key: 'DatabasePassword' });
    expect(envRef(job, 'DB_ROOT_PASSWORD')).toEqual({ name: 'osp-secret', key: 'DbRootPassword' });
    expect(secretData(fake, 'placement-config-data', 'placement.conf')).toContain(
      `connection = mysql+pymysql://placement:${generated}@openstack.openstack.svc/placement?`,
    );
    // Kept: another pass neither regenerates nor rewrites it.
    const writes = fake.writes();
    await reconcile(fake);
    expect(secretData(fake, 'placement-db-secret', 'DatabasePassword')).toBe(generated);
    expect(fake.writes()).toBe(writes);
  });

  it('takes the account password from PlacementDatabasePassword when the Secret has it (older osp-secret)', async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake);
    await converge(fake);
    expect(fake.peek(Kinds.Secret, { namespace: NS, name: 'placement-db-secret' })).toBeUndefined();
    const job = fake.peek<JobView>(Kinds.Job, { namespace: NS, name: 'placement-db-create' });
    expect(envRef(job, 'DB_PASSWORD')).toEqual({ name: 'osp-secret', key: 'PlacementDatabasePassword' });
  });

  it('uses the key passwordSelectors.database names and the databaseAccount as the SQL user', async () => {
    const fake = new FakeKubeClient();
    const cr = unreconciledPlacementAPI();
    cr.spec.passwordSelectors = { service: 'PlacementPassword', database: 'MyDbPw' };
    cr.spec.databaseAccount = 'placement_2';
    const secret = ospSecret({
      PlacementPassword: base64('p'),
      MyDbPw: base64('my-db-pw'),
      DbRootPassword: base64('r'),
    });
    seedDeployable(fake, cr, secret);
    await converge(fake);
    const job = fake.peek<JobView>(Kinds.Job, { namespace: NS, name: 'placement-db-create' });
    expect(envRef(job, 'DB_PASSWORD')).toEqual({ name: 'osp-secret', key: 'MyDbPw' });
    expect(JSON.stringify(job)).toContain('placement_2');
    expect(secretData(fake, 'placement-config-data', 'placement.conf')).toContain(
      'connection = mysql+pymysql://placement_2:my-db-pw@openstack.openstack.svc/placement?',
    );
  });

  it('names the generated account Secret after databaseAccount as a DNS name', async () => {
    const fake = new FakeKubeClient();
    const cr = unreconciledPlacementAPI();
    cr.spec.databaseAccount = 'Placement_2';
    seedDeployable(fake, cr, todaysOspSecret());
    await converge(fake);
    expect(secretData(fake, 'placement-2-db-secret', 'DatabasePassword')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('apiTimeout 0 means 60 (upstream: its webhook writes the default)', async () => {
    const fake = new FakeKubeClient();
    const cr = unreconciledPlacementAPI();
    cr.spec.apiTimeout = 0;
    seedDeployable(fake, cr);
    await converge(fake);
    expect(secretData(fake, 'placement-config-data', 'httpd.conf')).toContain('TimeOut 60\n');
  });

  it('preserveJobs keeps finished Jobs (no TTL); by default they go 600 s after finishing', async () => {
    const ttl = async (preserveJobs: boolean) => {
      const fake = new FakeKubeClient();
      const cr = unreconciledPlacementAPI();
      cr.spec.preserveJobs = preserveJobs;
      seedDeployable(fake, cr);
      await converge(fake);
      return ['placement-db-create', 'placement-db-sync'].map(
        (name) =>
          fake.peek<KubeObject & { spec: { ttlSecondsAfterFinished?: number } }>(Kinds.Job, {
            namespace: NS,
            name,
          })?.spec.ttlSecondsAfterFinished,
      );
    };
    expect(await ttl(true)).toEqual([undefined, undefined]);
    expect(await ttl(false)).toEqual([600, 600]);
  });

  it("reports upstream's 15 conditions, and labels no Job pod with service: placement", async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake, unreconciledPlacementAPI(), todaysOspSecret());
    await converge(fake);
    const conditions = fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.conditions ?? [];
    // In upstream's order (Ready first, then by type), with upstream's True messages: its kuttl
    // asserts compare the list element by element.
    expect(conditions.map((c) => [c.type, c.message])).toEqual([
      ['Ready', 'Setup complete'],
      ['CreateServiceReady', 'Create service completed'],
      ['DBReady', 'DB create completed'],
      ['DBSyncReady', 'DBsync completed'],
      ['DeploymentReady', 'Deployment completed'],
      ['InputReady', 'Input data complete'],
      ['KeystoneEndpointReady', 'Setup complete'],
      ['KeystoneServiceReady', 'Setup complete'],
      ['MariaDBAccountReady', 'MariaDBAccount creation complete'],
      ['NetworkAttachmentsReady', 'NetworkAttachments completed'],
      ['RoleBindingReady', 'RoleBinding created'],
      ['RoleReady', 'Role created'],
      ['ServiceAccountReady', 'ServiceAccount created'],
      ['ServiceConfigReady', 'Service config create completed'],
      ['TLSInputReady', 'Input data complete'],
    ]);
    expect(conditions.every((c) => c.status === 'True' && c.reason === 'Ready')).toBe(true);
    expect(conditionOf(fake, 'TLSInputReady')?.message).toBe('Input data complete');
    for (const name of ['placement-db-create', 'placement-db-sync']) {
      const job = fake.peek<JobView>(Kinds.Job, { namespace: NS, name });
      expect(job?.metadata.labels, name).toEqual({ service: 'placement', owner: 'placement' });
      expect(job?.spec.template.metadata?.labels?.['service'], name).toBeUndefined();
    }
    // upstream's empty <name>-scripts Secret, owned and labelled like the config Secret
    const scripts = fake.peek(Kinds.Secret, { namespace: NS, name: 'placement-scripts' });
    expect(scripts?.metadata.labels?.['placement.openstack.org/name']).toBe('placement');
    expect(scripts?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'PlacementAPI', controller: true });
  });
});

const TLS_SPEC = {
  api: { internal: { secretName: 'cert-internal-svc' }, public: { secretName: 'cert-public-svc' } },
  caBundleSecretName: 'combined-ca-bundle',
};
const tlsSecret = (name: string, data: Record<string, string>): KubeObject =>
  ({
    metadata: { name, namespace: NS },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])),
  }) as KubeObject;
const certSecret = (name: string, cert = `${name}-crt`) =>
  tlsSecret(name, { 'tls.crt': cert, 'tls.key': `${name}-key` });
const configHash = (fake: FakeKubeClient) =>
  fake
    .peek<
      KubeObject & {
        spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } };
      }
    >(Kinds.Deployment, { namespace: NS, name: 'placement' })
    ?.spec.template.spec.containers[1]?.env.find((e) => e.name === 'CONFIG_HASH')?.value;

describe('pod-level TLS', () => {
  const tlsAPI = () => ({
    ...unreconciledPlacementAPI(),
    spec: { ...unreconciledPlacementAPI().spec, tls: TLS_SPEC },
  });

  it('waits in TLSInputReady naming the missing CA bundle, then the missing certificate, and recovers', async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake, tlsAPI());
    let first = await reconcile(fake);
    for (let i = 0; i < 3 && conditionOf(fake, 'TLSInputReady')?.status === 'Unknown'; i++) {
      await runOthers(fake); // the db-create Job completes
      first = await reconcile(fake);
    }
    expect(conditionOf(fake, 'TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      message: 'TLSInput is missing: combined-ca-bundle',
    });
    expect(first.result).toEqual({ requeueAfterMs: 10_000 });
    expect(fake.peek(Kinds.Deployment, { namespace: NS, name: 'placement' })).toBeUndefined();

    fake.seed(Kinds.Secret, tlsSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA1' }));
    fake.seed(Kinds.Secret, certSecret('cert-internal-svc'));
    await reconcile(fake);
    expect(conditionOf(fake, 'TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Requested',
      severity: 'Info',
      message: 'TLSInput is missing: cert-public-svc',
    });

    fake.seed(Kinds.Secret, tlsSecret('cert-public-svc', { 'tls.crt': 'c' }));
    const { events } = await reconcile(fake);
    expect(conditionOf(fake, 'TLSInputReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      message: 'TLSInput is missing: key tls.key in Secret cert-public-svc',
    });
    expect(events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'TLSInputError' }));

    await fake.delete(Kinds.Secret, { namespace: NS, name: 'cert-public-svc' });
    fake.seed(Kinds.Secret, certSecret('cert-public-svc'));
    await converge(fake);
    expect(conditionOf(fake, 'TLSInputReady')).toMatchObject({
      status: 'True',
      message: 'Input data complete',
    });
    expect(conditionOf(fake, 'Ready')?.status).toBe('True');
  });

  it('serves https vhosts, publishes https:// endpoints, and a new certificate or CA rolls only the API pods', async () => {
    const fake = new FakeKubeClient();
    seedDeployable(fake, tlsAPI());
    fake.seed(Kinds.Secret, tlsSecret('combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA1' }));
    fake.seed(Kinds.Secret, certSecret('cert-internal-svc'));
    fake.seed(Kinds.Secret, certSecret('cert-public-svc'));
    await converge(fake);
    expect(conditionOf(fake, 'Ready')?.status).toBe('True');
    const https = {
      internal: 'https://placement-internal.openstack.svc:8778',
      public: 'https://placement-public.openstack.svc:8778',
    };
    expect(fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.apiEndpoints).toEqual(https);
    const endpoint = fake.peek<KubeObject & { spec: { endpoints: Record<string, string> } }>(
      KeystoneKinds.KeystoneEndpoint,
      { namespace: NS, name: 'placement' },
    );
    expect(endpoint?.spec.endpoints).toEqual(https);
    const httpd = secretData(fake, 'placement-config-data', 'httpd.conf') ?? '';
    for (const ep of ['internal', 'public']) {
      expect(httpd).toContain(`SSLCertificateFile      "/etc/pki/tls/certs/${ep}.crt"`);
      expect(httpd).toContain(`SSLCertificateKeyFile   "/etc/pki/tls/private/${ep}.key"`);
    }
    expect(httpd.match(/SSLEngine on/g)).toHaveLength(2);
    const kolla = JSON.parse(secretData(fake, 'placement-config-data', 'placement-api-config.json') ?? '{}');
    expect(kolla.config_files).toContainEqual(
      expect.objectContaining({ source: '/var/lib/config-data/tls/certs/*', dest: '/etc/pki/tls/certs/' }),
    );
    const dbSync = JSON.stringify(fake.peek(Kinds.Job, { namespace: NS, name: 'placement-db-sync' }));
    expect(dbSync).toContain('/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem');

    const before = configHash(fake);
    const dbsyncHash = fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.hash?.['dbsync'];
    await setSecretData(fake, NS, 'cert-public-svc', { 'tls.crt': 'renewed' });
    await converge(fake, 3);
    await reconcile(fake);
    const afterCert = configHash(fake);
    expect(afterCert).not.toBe(before);
    await setSecretData(fake, NS, 'combined-ca-bundle', { 'tls-ca-bundle.pem': 'CA2' });
    await reconcile(fake);
    expect(configHash(fake)).not.toBe(afterCert);
    // The Jobs' pod specs did not change: db-sync is not run again.
    expect(fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.hash?.['dbsync']).toBe(dbsyncHash);
  });
});

describe('PlacementAPI: an API error lands on the condition of the step that hit it, and nowhere else', () => {
  // DBReady is listed first but its step runs fourth: RBAC and input failures must not land there.
  it.each([
    ['ensureRbac', { verb: 'apply', kind: 'ServiceAccount' }, 'ServiceAccountReady'],
    ['ensureDatabase', { verb: 'create', kind: 'Job', name: 'placement-db-create' }, 'DBReady'],
    [
      'ensureConfigSecret',
      { verb: 'apply', kind: 'Secret', name: 'placement-scripts' },
      'ServiceConfigReady',
    ],
    ['ensureServices', { verb: 'apply', kind: 'Service', name: 'placement-internal' }, 'CreateServiceReady'],
    ['runDbSync', { verb: 'create', kind: 'Job', name: 'placement-db-sync' }, 'DBSyncReady'],
    ['ensureDeployment', { verb: 'apply', kind: 'Deployment' }, 'DeploymentReady'],
    ['registerInKeystone (service)', { verb: 'apply', kind: 'KeystoneService' }, 'KeystoneServiceReady'],
    ['registerInKeystone (endpoint)', { verb: 'apply', kind: 'KeystoneEndpoint' }, 'KeystoneEndpointReady'],
  ] as const)('%s: %j fails → %s False (Error)', async (_step, failOn, expected) => {
    const { conditions, changed } = await stepFailure<PlacementAPI>({
      world: () => {
        const fake = new FakeKubeClient();
        seedDeployable(fake);
        return fake;
      },
      kind: PlacementAPIKind,
      ref,
      reconciler: () => placementApiReconciler(defaultsFromEnv({})),
      failOn,
      settle: runOthers,
    });
    const cr = { metadata: {}, status: { conditions } } as KubeObject;
    expect(changed).toEqual([expected]);
    expect(conditionIn(cr, expected)).toMatchObject({ status: 'False', reason: 'Error' });
    expect(conditionIn(cr, 'Ready')).toMatchObject({
      status: 'False',
      message: conditionIn(cr, expected)?.message,
    });
  });
});
