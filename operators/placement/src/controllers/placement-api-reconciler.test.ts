import { KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { FakeKubeClient, reconcileOnce, simulateControllerManager } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { samplePlacementAPI } from '../../test/fixtures.js';
import { type PlacementAPI, PlacementAPIKind } from '../api/kinds.js';
import { defaultsFromEnv } from '../config/defaults.js';
import { placementApiReconciler } from './placement-api-reconciler.js';

const NS = 'openstack';
const ref = { namespace: NS, name: 'placement' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const ready = () => [
  {
    type: 'Ready',
    status: 'True',
    reason: 'Ready',
    message: 'Setup complete',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  },
];

/** The PlacementAPI as the API server returns it, before this operator touched it. */
const placementAPI = (): PlacementAPI => {
  const { uid: _u, generation: _g, ...metadata } = samplePlacementAPI().metadata;
  return { ...samplePlacementAPI(), metadata };
};

const ospSecret = (data: Record<string, string>): KubeObject =>
  ({ metadata: { name: 'osp-secret', namespace: NS }, data }) as KubeObject;

const fullSecret = () =>
  ospSecret({
    PlacementPassword: b64('placement-pw\n'),
    PlacementDatabasePassword: b64('db-pw'),
    DbRootPassword: b64('root-pw'),
  });

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

const conditionOf = (fake: FakeKubeClient, type: string) =>
  fake.peek<PlacementAPI>(PlacementAPIKind, ref)?.status?.conditions?.find((c) => c.type === type);

const reconcile = (fake: FakeKubeClient) =>
  reconcileOnce<PlacementAPI>(fake, PlacementAPIKind, ref, placementApiReconciler(defaultsFromEnv({})));

describe('PlacementAPI reconciler (steps on a fake API server)', () => {
  it('names every missing Secret key at once, in the condition and a Warning Event', async () => {
    const fake = new FakeKubeClient();
    fake.seed(PlacementAPIKind, placementAPI());
    fake.seed(Kinds.Secret, ospSecret({ PlacementPassword: b64('pw') }));
    const { result, events } = await reconcile(fake);
    const message =
      "Input data error occurred field not found in Secret: field 'PlacementDatabasePassword' not found in secret/osp-secret, field 'DbRootPassword' not found in secret/osp-secret";
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
    fake.seed(PlacementAPIKind, placementAPI());
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

  it('converges to Ready with its keystone registration, then a pass writes nothing', async () => {
    const fake = new FakeKubeClient();
    fake.seed(PlacementAPIKind, placementAPI());
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

  it('deletion takes its finalizer off the keystone children, then off itself', async () => {
    const fake = new FakeKubeClient();
    const finalizers = ['openstack.org/placementapi'];
    fake.seed(PlacementAPIKind, { ...placementAPI(), metadata: { ...placementAPI().metadata, finalizers } });
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
