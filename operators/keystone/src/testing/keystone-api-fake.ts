import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  base64,
  type ConditionView,
  type ConvergeOptions,
  conditionOf,
  convergeOnFake,
  type FakeKubeClient,
  reconcileOnce,
  simulateControllerManager,
} from '@stackops/lib-common/testing';
import { KeystoneKinds } from '../api/group.js';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { defaultsFromEnv } from '../config/defaults.js';
import { keystoneApiReconciler } from '../controllers/keystone-api/keystone-api-reconciler.js';
import { memcachedService } from './memcached-service.js';

/** The namespace and the KeystoneAPI of the reconciler unit tests. */
export const FAKE_NS = 'openstack';
export const FAKE_KEYSTONE = { namespace: FAKE_NS, name: 'keystone' };

/** A Secret of the test namespace, its values base64-encoded as the API server keeps them. */
export const fakeSecret = (name: string, data: Record<string, string>, type?: string): KubeObject =>
  ({
    metadata: { name, namespace: FAKE_NS },
    ...(type ? { type } : {}),
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])),
  }) as KubeObject;

/** The KeystoneAPI `keystone` as a user writes it (no defaults applied: the fake has no CRD). */
export const fakeKeystoneAPI = (spec: Partial<KeystoneAPI['spec']> = {}): KeystoneAPI => ({
  apiVersion: 'keystone.openstack.org/v1beta1',
  kind: 'KeystoneAPI',
  metadata: { name: 'keystone', namespace: FAKE_NS },
  spec: { secret: 'osp-secret', ...spec },
});

/**
 * A namespace where a KeystoneAPI converges on the fake: the KeystoneAPI (with `spec`), its
 * `osp-secret`, the database Service `openstack` and, unless `memcached: false`, memcached as a
 * Service.
 */
export function seedKeystoneWorld(
  fake: FakeKubeClient,
  spec: Partial<KeystoneAPI['spec']> = {},
  opts: { memcached?: boolean; passwords?: Record<string, string> } = {},
): FakeKubeClient {
  fake.seed(KeystoneKinds.KeystoneAPI, fakeKeystoneAPI(spec));
  fake.seed(
    Kinds.Secret,
    fakeSecret(
      'osp-secret',
      opts.passwords ?? { AdminPassword: 'a', KeystoneDatabasePassword: 'd', DbRootPassword: 'r' },
    ),
  );
  fake.seed(Kinds.Service, {
    metadata: { name: 'openstack', namespace: FAKE_NS },
    spec: { ports: [{ port: 3306 }] },
  } as KubeObject);
  if (opts.memcached !== false) fake.seed(Kinds.Service, memcachedService(FAKE_NS));
  return fake;
}

/** The KeystoneAPI's condition `type` as the fake stores it. */
export const keystoneCondition = (fake: FakeKubeClient, type: string): ConditionView | undefined =>
  conditionOf(fake.peek(KeystoneKinds.KeystoneAPI, FAKE_KEYSTONE), type);

/** One pass of a fresh KeystoneAPI reconciler (default settings) over the fake. */
export const reconcileKeystone = (fake: FakeKubeClient, opts: { now?: () => Date } = {}) =>
  reconcileOnce<KeystoneAPI>(
    fake,
    KeystoneKinds.KeystoneAPI,
    FAKE_KEYSTONE,
    keystoneApiReconciler(defaultsFromEnv({}), opts),
  );

/**
 * `passes` passes, each followed by what kube-controller-manager would do (Jobs and Deployments
 * finishing), for a test that checks where a KeystoneAPI waits; the Events they recorded.
 */
export async function keystonePasses(fake: FakeKubeClient, passes: number): Promise<unknown[]> {
  const events: unknown[] = [];
  for (let i = 0; i < passes; i++) {
    events.push(...(await reconcileKeystone(fake)).events);
    await simulateControllerManager(fake);
  }
  return events;
}

/** Passes until Ready, Jobs and Deployments finishing in between (`convergeOnFake`). */
export const convergeKeystone = (fake: FakeKubeClient, opts: ConvergeOptions & { now?: () => Date } = {}) =>
  convergeOnFake<KeystoneAPI>(
    fake,
    KeystoneKinds.KeystoneAPI,
    FAKE_KEYSTONE,
    keystoneApiReconciler(defaultsFromEnv({}), opts.now ? { now: opts.now } : {}),
    opts,
  );
