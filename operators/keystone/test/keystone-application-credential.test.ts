import { join } from 'node:path';
import { cacheLayout } from '@stackops/kube-env';
import { Kinds, type KubeObject, serviceAccountUser } from '@stackops/lib-common/client';
import { type SecretObject, secretValue } from '@stackops/lib-common/objects';
import type { CacheReader } from '@stackops/lib-common/runtime';
import {
  chartFullname,
  createHelm,
  eventsIn,
  startTestManager,
  waitForDeletion,
  waitForObject,
  waitUntil,
} from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acConsumerFinalizer,
  type KeystoneApplicationCredential,
  KeystoneApplicationCredentialKind,
} from '../src/api/keystone-application-credential.js';
import { registerKeystoneApiController } from '../src/controllers/keystone-api/keystone-api-controller.js';
import { registerKeystoneApplicationCredentialController } from '../src/controllers/keystone-application-credential/keystone-application-credential-controller.js';
import { keystoneApplicationCredentialReconciler } from '../src/controllers/keystone-application-credential/keystone-application-credential-reconciler.js';
import type { IdentityClient } from '../src/identity/client.js';
import { IdentityClientPool } from '../src/identity/client-pool.js';
import { type KeystoneServer, startKeystoneServer } from '../src/testing/index.js';
import {
  adminClient,
  CHART_DIR,
  countingWrites,
  installCrds,
  newNamespace,
  reconcileWith,
  rememberingReaders,
  TEST_DEFAULTS,
} from './support/harness.js';
import { waitForStatus } from './support/keystone.js';
import {
  conditionOf,
  createExternalKeystoneAPI,
  createOspSecret,
  PLACEMENT_PASSWORD,
} from './support/keystone-server/operator.js';

const AC = KeystoneApplicationCredentialKind;
const helm = createHelm(join(cacheLayout().bin, 'helm'));

/** The KeystoneApplicationCredential openstack-operator creates for placement (upstream's example shape). */
const acPlacement = (ns: string, spec: Partial<KeystoneApplicationCredential['spec']> = {}) =>
  ({
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneApplicationCredential',
    metadata: { name: 'ac-placement', namespace: ns },
    spec: {
      secret: 'osp-secret',
      passwordSelector: 'PlacementPassword',
      userName: 'placement',
      roles: ['service'],
      ...spec,
    },
  }) as KeystoneApplicationCredential;

/** Keystone's answer to a login with an application credential: the token's user, or undefined when refused. */
async function loginWith(keystone: KeystoneServer, id: string, secret: string): Promise<string | undefined> {
  const res = await fetch(`${keystone.url}/v3/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } },
    }),
  });
  if (res.status !== 201) return undefined;
  const body = (await res.json()) as { token: { user: { name: string }; roles?: { name: string }[] } };
  return `${body.token.user.name}:${(body.token.roles ?? []).map((r) => r.name).join(',')}`;
}

describe('KeystoneApplicationCredential (real Keystone, KeystoneAPI in external mode, chart RBAC)', () => {
  const client = adminClient();
  let keystone: KeystoneServer;
  let admin: IdentityClient;
  let stop: () => Promise<void>;
  let readers = new Map<string, CacheReader>();
  let uninstall: (() => Promise<unknown>) | undefined;
  const namespaces: string[] = [];

  beforeAll(async () => {
    await installCrds(client);
    keystone = await startKeystoneServer();
    admin = keystone.adminClient();
    // The service user as a KeystoneService leaves it: role service on project service.
    const existing = async <T>(found: Promise<T[]>, create: () => Promise<T>) => (await found)[0] ?? create();
    const project = await existing(admin.projects.list({ name: 'service' }), () =>
      admin.projects.create({ name: 'service', domain_id: 'default' }),
    );
    const role = await existing(admin.roles.list({ name: 'service' }), () =>
      admin.roles.create({ name: 'service' }),
    );
    const user = await admin.users.create({
      name: 'placement',
      domain_id: 'default',
      password: PLACEMENT_PASSWORD,
    });
    await admin.roleAssignments.grant({ projectId: project.id }, user.id, role.id);
    // The controllers run as the chart's ServiceAccount: its RBAC must be enough for all of this.
    const opNs = await newNamespace(client, 'ac-op');
    // Named after its namespace: cluster-scoped RBAC left by an aborted run never collides.
    const release = opNs;
    await helm.install(release, CHART_DIR, { namespace: opNs });
    // The release goes last: its RBAC lets the controller clean up the test namespaces.
    uninstall = async () => {
      await helm.uninstall(release, opNs);
      await client.delete(Kinds.Namespace, { name: opNs }).catch(() => false);
    };
    const impersonate = serviceAccountUser(opNs, chartFullname(release, 'keystone-operator'));
    const manager = await startTestManager({ name: 'keystone-operator', impersonate }, (m) => {
      registerKeystoneApiController(m, TEST_DEFAULTS);
      // The controller's reader (its Secrets are watched by name, in no shared cache).
      readers = rememberingReaders(m);
      registerKeystoneApplicationCredentialController(m);
    });
    stop = () => manager.stop();
  }, 900_000);
  afterAll(async () => {
    // Namespaces first, while the controller runs: it revokes and takes its finalizers off.
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
    await waitUntil(
      'KeystoneApplicationCredentials of the test namespaces deleted',
      async () =>
        (await client.list(AC)).items.every((o) => !namespaces.includes(o.metadata.namespace ?? '')),
      { timeoutMs: 30_000 },
    ).catch(() => undefined);
    await stop?.();
    await uninstall?.();
    await keystone?.stop();
  });

  /** Keystone as the service user (project service), and its ID: what a crash or upstream left behind is made with it. */
  async function placementUser() {
    const asPlacement = new IdentityClientPool().get({
      authUrl: keystone.url,
      username: 'placement',
      password: PLACEMENT_PASSWORD,
      scope: 'project',
      projectName: 'service',
    });
    return { asPlacement, userId: (await asPlacement.currentToken()).user.id };
  }

  async function keystoneNamespace(): Promise<string> {
    const ns = await newNamespace(client, 'ac');
    namespaces.push(ns);
    await createOspSecret(client, ns, keystone);
    await createExternalKeystoneAPI(client, ns, keystone);
    return ns;
  }

  const secretOf = (ns: string, name: string) =>
    client.get<SecretObject>(Kinds.Secret, { namespace: ns, name });
  const credentialOf = async (ns: string, name: string) => {
    const s = await secretOf(ns, name);
    return { id: secretValue(s!, 'AC_ID') ?? '', secret: secretValue(s!, 'AC_SECRET') ?? '', obj: s! };
  };
  const readyAc = (
    ns: string,
    what: string,
    check: (ac: KeystoneApplicationCredential) => boolean = () => true,
  ) =>
    waitForObject<KeystoneApplicationCredential>(
      client,
      AC,
      { namespace: ns, name: 'ac-placement' },
      (o) => conditionOf(o, 'Ready')?.status === 'True' && check(o),
      { description: what },
    );
  /** A merge patch of `ns`/ac-placement (its spec or metadata). */
  const patchAc = (ns: string, body: object) =>
    client.patch(AC, { namespace: ns, name: 'ac-placement' }, body, 'merge');
  /** `ns`/ac-placement once its KeystoneApplicationCredentialReady has `status` (the test checks the rest). */
  const acWhen = (ns: string, status: 'True' | 'False') =>
    waitForStatus<KeystoneApplicationCredential>(
      client,
      AC,
      { namespace: ns, name: 'ac-placement' },
      'KeystoneApplicationCredentialReady',
      status,
    );
  /** Status patched as upstream documents manual rotation: an expiry in the past. */
  const expire = (ns: string) =>
    client.patch(
      AC,
      { namespace: ns, name: 'ac-placement' },
      { status: { expiresAt: '2001-05-19T00:00:00Z' } },
      'merge',
      {
        subresource: 'status',
      },
    );

  it('creates the credential in an immutable Secret that logs in to Keystone; rotation keeps the previous one, revokes older ones unless a consumer holds them; deletion revokes all', async () => {
    const ns = await keystoneNamespace();
    await client.create(AC, acPlacement(ns, { expirationDays: 30, gracePeriodDays: 10 }));
    const first = await readyAc(ns, 'Ready with a Secret', (o) => Boolean(o.status?.secretName));
    const st = first.status!;
    expect(st.secretName).toBe(`ac-placement-${st.acID?.slice(0, 5)}-secret`);
    expect(first.metadata.finalizers).toContain('openstack.org/applicationcredential');
    expect(conditionOf(first, 'KeystoneApplicationCredentialReady')).toMatchObject({
      status: 'True',
      message: 'ApplicationCredential ready',
    });
    const days = (Date.parse(st.expiresAt!) - Date.parse(st.createdAt!)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(Math.round((Date.parse(st.expiresAt!) - Date.parse(st.rotationEligibleAt!)) / 86_400_000)).toBe(
      10,
    );
    const c1 = await credentialOf(ns, st.secretName!);
    expect(c1.id).toBe(st.acID);
    expect(c1.obj).toMatchObject({
      immutable: true,
      metadata: {
        labels: { 'application-credentials': 'true', 'application-credential-service': 'placement' },
        finalizers: ['openstack.org/ac-secret-protection'],
        ownerReferences: [
          expect.objectContaining({ kind: 'KeystoneApplicationCredential', controller: true }),
        ],
      },
    });
    expect(await loginWith(keystone, c1.id, c1.secret)).toBe('placement:service');

    // Rotation 1: a new credential and Secret; the first stays as previousSecretName and still works.
    await expire(ns);
    const second = await readyAc(
      ns,
      'rotated once',
      (o) => o.status?.acID !== c1.id && Boolean(o.status?.lastRotated),
    );
    expect(second.status?.previousSecretName).toBe(st.secretName);
    const c2 = await credentialOf(ns, second.status!.secretName!);
    expect(await loginWith(keystone, c2.id, c2.secret)).toBe('placement:service');
    expect(await loginWith(keystone, c1.id, c1.secret)).toBe('placement:service');
    const rotated = await waitUntil('ApplicationCredentialRotated event', async () =>
      (await eventsIn(client, ns)).find((e) => e.reason === 'ApplicationCredentialRotated'),
    );
    expect(rotated.message).not.toContain(c2.secret);

    // Rotation 2: the first Secret (older than previous, held by no consumer) is revoked and deleted.
    // A consumer holds the second one: rotation 3 keeps it and its credential although it is older than previous.
    await client.patch(
      Kinds.Secret,
      { namespace: ns, name: second.status!.secretName! },
      { metadata: { finalizers: ['openstack.org/ac-secret-protection', acConsumerFinalizer('placement')] } },
      'merge',
    );
    await expire(ns);
    const third = await readyAc(ns, 'rotated twice', (o) => o.status?.acID !== c2.id);
    expect(third.status?.previousSecretName).toBe(second.status?.secretName);
    await waitForDeletion(
      client,
      Kinds.Secret,
      { namespace: ns, name: st.secretName! },
      { timeoutMs: 30_000 },
    );
    expect(await loginWith(keystone, c1.id, c1.secret)).toBeUndefined();
    await expire(ns);
    const fourth = await readyAc(ns, 'rotated three times', (o) => o.status?.acID !== third.status?.acID);
    const c3 = await credentialOf(ns, third.status!.secretName!);
    expect(await loginWith(keystone, c3.id, c3.secret)).toBe('placement:service');
    expect(await loginWith(keystone, c2.id, c2.secret)).toBe('placement:service');
    expect(await secretOf(ns, second.status!.secretName!)).toBeDefined();
    const c4 = await credentialOf(ns, fourth.status!.secretName!);

    // Deletion revokes every credential of the CR; the Secrets go with it, but the held one waits for its consumer.
    await client.delete(AC, { namespace: ns, name: 'ac-placement' });
    await waitForDeletion(client, AC, { namespace: ns, name: 'ac-placement' }, { timeoutMs: 30_000 });
    expect(await loginWith(keystone, c4.id, c4.secret)).toBeUndefined();
    expect(await loginWith(keystone, c2.id, c2.secret)).toBeUndefined();
    await waitForDeletion(
      client,
      Kinds.Secret,
      { namespace: ns, name: fourth.status!.secretName! },
      { timeoutMs: 30_000 },
    );
    const held = await secretOf(ns, second.status!.secretName!);
    expect(held?.metadata.finalizers).toEqual([acConsumerFinalizer('placement')]);
    await client.patch(
      Kinds.Secret,
      { namespace: ns, name: second.status!.secretName! },
      { metadata: { finalizers: null } },
      'merge',
    );
  });

  it('a changed role list rotates at once; a role the user lacks and a missing password key are errors naming the field, with an Event', async () => {
    const ns = await keystoneNamespace();
    await client.create(AC, acPlacement(ns));
    const first = await readyAc(ns, 'Ready', (o) => Boolean(o.status?.acID));
    await patchAc(ns, { spec: { roles: ['service', 'admin'] } });
    const refused = await acWhen(ns, 'False');
    expect(conditionOf(refused, 'KeystoneApplicationCredentialReady')).toMatchObject({
      severity: 'Error',
      reason: 'Error',
    });
    expect(conditionOf(refused, 'KeystoneApplicationCredentialReady')?.message).toContain('spec.roles');
    await waitUntil('InvalidSpec event', async () =>
      (await eventsIn(client, ns)).find(
        (e) => e.reason === 'InvalidSpec' && e.message?.includes('spec.roles'),
      ),
    );
    expect(refused.status?.acID).toBe(first.status?.acID);

    await patchAc(ns, { spec: { roles: ['service'], unrestricted: true } });
    const rotated = await readyAc(
      ns,
      'rotated for unrestricted',
      (o) => o.status?.acID !== first.status?.acID,
    );
    expect(rotated.status?.securityHash).not.toBe(first.status?.securityHash);

    await patchAc(ns, { spec: { passwordSelector: 'NoSuchKey' } });
    const noKey = await acWhen(ns, 'False');
    expect(conditionOf(noKey, 'KeystoneApplicationCredentialReady')).toMatchObject({
      severity: 'Error',
      message:
        'ApplicationCredential error occurred: spec.passwordSelector: Secret osp-secret has no key NoSuchKey',
    });
  });

  it('the API server refuses gracePeriodDays not below expirationDays, and defaults both as upstream', async () => {
    const ns = await keystoneNamespace();
    await expect(
      client.create(AC, acPlacement(ns, { expirationDays: 10, gracePeriodDays: 10 })),
    ).rejects.toThrow(/gracePeriodDays must be smaller than expirationDays/);
    await expect(client.create(AC, acPlacement(ns, { roles: [] }))).rejects.toThrow(/roles/);
    const created = await client.create(AC, acPlacement(ns));
    expect(created.spec).toMatchObject({ expirationDays: 365, gracePeriodDays: 182, unrestricted: false });
  });

  it('access rules reach Keystone: the credential is limited to them; a pass over the Ready object writes nothing', async () => {
    const ns = await keystoneNamespace();
    const rules = [{ service: 'identity', path: '/v3/auth/tokens', method: 'GET' as const }];
    await client.create(AC, acPlacement(ns, { accessRules: rules }));
    const ac = await readyAc(ns, 'Ready', (o) => Boolean(o.status?.acID));
    const userId = (await admin.users.list({ name: 'placement', domain_id: 'default' }))[0]?.id ?? '';
    const shown = (await admin.request(
      'GET',
      `users/${userId}/application_credentials/${ac.status?.acID}`,
    )) as {
      application_credential: {
        access_rules: { service: string; path: string; method: string }[];
        description: string;
      };
    };
    expect(
      shown.application_credential.access_rules.map(({ service, path, method }) => ({
        service,
        path,
        method,
      })),
    ).toEqual(rules);
    // A pass over the Ready object writes nothing and announces nothing; it comes back within 12 h.
    const counting = countingWrites(client);
    const again = await reconcileWith(keystoneApplicationCredentialReconciler(new IdentityClientPool()), ac, {
      client: counting.client,
      cache: readers.get('keystoneapplicationcredential')!,
    });
    expect(again).toEqual({ result: { requeueAfterMs: 12 * 3600_000 }, events: [] });
    expect(counting.writes).toEqual([]);
    expect(shown.application_credential.description).toContain(
      `stackops_owner=KeystoneApplicationCredential/${ns}/ac-placement/${ac.metadata.uid}`,
    );
  });

  it('a deleted current Secret is replaced by a rotation and its credential revoked; a marked credential no Secret records is revoked', async () => {
    const ns = await keystoneNamespace();
    const created = await client.create(AC, acPlacement(ns));
    const first = await readyAc(ns, 'Ready', (o) => Boolean(o.status?.acID));
    const c1 = await credentialOf(ns, first.status!.secretName!);

    // Someone deletes the Secret: the protection finalizer keeps it until the controller has rotated.
    await client.delete(Kinds.Secret, { namespace: ns, name: first.status!.secretName! });
    const healed = await readyAc(ns, 'rotated after the Secret was deleted', (o) => o.status?.acID !== c1.id);
    expect(healed.status?.previousSecretName).toBe(first.status?.secretName);
    await waitForDeletion(
      client,
      Kinds.Secret,
      { namespace: ns, name: first.status!.secretName! },
      { timeoutMs: 30_000 },
    );
    expect(await loginWith(keystone, c1.id, c1.secret)).toBeUndefined();
    const c2 = await credentialOf(ns, healed.status!.secretName!);
    expect(await loginWith(keystone, c2.id, c2.secret)).toBe('placement:service');

    // A credential carrying this CR's marker that no Secret records (a crash after Keystone's create).
    const { asPlacement, userId } = await placementUser();
    const orphan = (await asPlacement.request('POST', `users/${userId}/application_credentials`, {
      application_credential: {
        name: 'ac-placement-crash',
        description: `stackops_owner=KeystoneApplicationCredential/${ns}/ac-placement/${created.metadata.uid}`,
        roles: [{ name: 'service' }],
      },
    })) as { application_credential: { id: string; secret: string } };
    const { id, secret } = orphan.application_credential;
    expect(await loginWith(keystone, id, secret)).toBe('placement:service');
    await patchAc(ns, { metadata: { annotations: { touched: 'now' } } });
    await waitUntil('the orphan revoked', async () =>
      (await loginWith(keystone, id, secret)) === undefined ? true : undefined,
    );
    expect(await loginWith(keystone, c2.id, c2.secret)).toBe('placement:service');
  });

  it('takes over a CR and Secret as upstream left them (Go securityHash, upstream description, no service label): no rotation, no new credential; deletion revokes it', async () => {
    // No KeystoneAPI yet: the controller waits, as it would while the Go operator is being replaced.
    const ns = await newNamespace(client, 'ac');
    namespaces.push(ns);
    await createOspSecret(client, ns, keystone);
    const cr = await client.create(AC, acPlacement(ns));
    const { asPlacement, userId } = await placementUser();
    const expiresAt = new Date(Date.now() + 365 * 86_400_000);
    const made = (await asPlacement.request('POST', `users/${userId}/application_credentials`, {
      application_credential: {
        name: 'ac-placement-up123',
        description: `Created by keystone-operator for AC CR ${ns}/ac-placement (user: placement)`,
        roles: [{ name: 'service' }],
        expires_at: expiresAt.toISOString(),
      },
    })) as { application_credential: { id: string; secret: string } };
    const { id, secret } = made.application_credential;
    const secretName = `ac-placement-${id.slice(0, 5)}-secret`;
    await client.create(Kinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName,
        namespace: ns,
        // As older upstream versions wrote it: without the service label.
        labels: { 'application-credentials': 'true' },
        finalizers: ['openstack.org/ac-secret-protection'],
        ownerReferences: [
          {
            apiVersion: 'keystone.openstack.org/v1beta1',
            kind: 'KeystoneApplicationCredential',
            name: 'ac-placement',
            uid: cr.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      immutable: true,
      stringData: { AC_ID: id, AC_SECRET: secret },
    } as KubeObject);
    const stamp = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
    await client.patch(
      AC,
      { namespace: ns, name: 'ac-placement' },
      {
        status: {
          acID: id,
          secretName,
          createdAt: stamp(new Date()),
          expiresAt: stamp(expiresAt),
          rotationEligibleAt: stamp(new Date(expiresAt.getTime() - 182 * 86_400_000)),
          // What the Go operator wrote for roles [service] (lib-common ObjectHash).
          securityHash:
            'n5c5h646h55bh654h6h5b9h644h5d7h5dfh56h68fh64ch547h596h98h658h584h57ch67dh64bhbbhd6hf7h657h5fh547h5ffhbh5bhf4h5d5h55q',
        },
      },
      'merge',
      { subresource: 'status' },
    );
    await createExternalKeystoneAPI(client, ns, keystone);
    const taken = await readyAc(ns, 'Ready with the upstream credential');
    expect(taken.status).toMatchObject({ acID: id, secretName });
    expect(taken.status?.lastRotated).toBeUndefined();
    const secrets = await client.list(Kinds.Secret, {
      namespace: ns,
      labelSelector: 'application-credentials=true',
    });
    expect(secrets.items.map((x) => x.metadata.name)).toEqual([secretName]);
    expect(await loginWith(keystone, id, secret)).toBe('placement:service');

    // Deleting the CR revokes that credential too and lets its Secret go.
    await client.delete(AC, { namespace: ns, name: 'ac-placement' });
    await waitForDeletion(client, AC, { namespace: ns, name: 'ac-placement' }, { timeoutMs: 30_000 });
    await waitForDeletion(client, Kinds.Secret, { namespace: ns, name: secretName }, { timeoutMs: 30_000 });
    expect(await loginWith(keystone, id, secret)).toBeUndefined();
  });
});
