import { ApiError, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ReconcileError } from '@stackops/lib-common/runtime';
import {
  base64,
  FakeKubeClient,
  FakeRecorder,
  reconcileOnce,
  simulateControllerManager,
  stepFailure,
} from '@stackops/lib-common/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { LABEL_CLUSTER_NAME, LABEL_NODE_TYPE, SIP_FINALIZER } from '../api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import type { SIPClusterSpec } from '../api/sipcluster.js';
import { DEFAULT_RETRY_DELAYS, sipClusterErrorPolicy } from './error-policy.js';
import { sipClusterReconciler } from './sipcluster-reconciler.js';

const NS = 'tenants';
const ROLE = 'example.org/flavor';
const images = { loadBalancer: 'haproxy:t', jumpHost: 'jump:t', auth: 'dex:t' };
const reconcile = sipClusterReconciler({ images });
const policy = sipClusterErrorPolicy(DEFAULT_RETRY_DELAYS);
const ref = { namespace: NS, name: 'c1' };

let fake: FakeKubeClient;

function seedHost(
  name: string,
  flavor: string,
  ip: string | undefined,
  labels: Record<string, string> = {},
  format: 'json' | 'yaml' = 'json',
) {
  if (ip !== undefined) {
    const networkData =
      format === 'json'
        ? JSON.stringify({ networks: [{ id: 'oam', ip_address: ip }] })
        : `networks:\n  - id: oam\n    ip_address: ${ip}\n`;
    fake.seed(Kinds.Secret, {
      metadata: { name: `${name}-nd`, namespace: NS },
      data: { networkData: base64(networkData) },
    });
  }
  fake.seed(Kinds.Secret, {
    metadata: { name: `${name}-bmc`, namespace: NS },
    data: { username: base64('admin'), password: base64('pw') },
  });
  fake.seed(BareMetalHostKind, {
    metadata: { name, namespace: NS, labels: { [ROLE]: flavor, ...labels } },
    spec: {
      bmc: { address: `ipmi://10.9.0.1/${name}`, credentialsName: `${name}-bmc` },
      networkData: { name: `${name}-nd` },
    },
  });
}

function spec(controlPlane = 1, extra: Partial<SIPClusterSpec['services']> = {}): SIPClusterSpec {
  return {
    nodes: {
      ControlPlane: {
        labelSelector: { matchLabels: { [ROLE]: 'cp' } },
        count: { active: controlPlane, standby: 0 },
      },
    },
    services: { loadBalancerControlPlane: [{ nodePort: 30001, nodeInterfaceId: 'oam' }], ...extra },
  };
}

const seedCluster = (s: SIPClusterSpec) =>
  fake.seed<SIPCluster>(SIPClusterKind, { metadata: { name: 'c1', namespace: NS }, spec: s })[0]!;
const sip = () => fake.peek<SIPCluster>(SIPClusterKind, ref);
const ready = () => sip()?.status?.conditions?.find((c) => c.type === 'Ready');
const owner = (name: string) => fake.peek<BareMetalHost>(BareMetalHostKind, { namespace: NS, name });

/** Runs one pass; a failed one resolves with its error (and the Events it recorded), as the controller sees it. */
async function pass() {
  const recorder = new FakeRecorder();
  try {
    const { result } = await reconcileOnce(fake, SIPClusterKind, ref, reconcile, { recorder });
    return { result, error: undefined, events: recorder.events };
  } catch (error) {
    return { result: undefined, error, events: recorder.events };
  }
}

beforeEach(() => {
  fake = new FakeKubeClient();
});

describe('SIPCluster reconciler (fake API server)', () => {
  it('gathers, deploys, labels, reports Ready; the next pass writes nothing', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedHost('cp-b', 'cp', '10.0.0.2');
    seedCluster(spec());

    const first = await pass();
    expect(first.error).toBeUndefined();
    expect(sip()?.metadata.finalizers).toEqual([SIP_FINALIZER]);
    expect(owner('cp-a')?.metadata.labels).toMatchObject({
      [LABEL_CLUSTER_NAME]: 'c1',
      [LABEL_NODE_TYPE]: 'ControlPlane',
    });
    expect(owner('cp-b')?.metadata.labels?.[LABEL_CLUSTER_NAME]).toBeUndefined();
    const lb = fake.peek<KubeObject>(Kinds.Deployment, {
      namespace: NS,
      name: 'loadbalancer-controlplane-c1',
    });
    expect(lb?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'SIPCluster', name: 'c1', controller: true }),
    ]);
    // Applied, not rolled out: Progressing, naming the service.
    const rolling = '1 ControlPlane hosts scheduled; services rolling out: loadbalancer-controlplane-c1';
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      severity: 'Info',
      message: rolling,
    });
    expect(first.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'HostScheduled', `BareMetalHost ${NS}/cp-a labelled as ControlPlane`],
      ['Normal', 'Progressing', rolling],
    ]);
    // Still rolling out: nothing changes, nothing is written.
    let writes = fake.writes();
    expect((await pass()).events).toEqual([]);
    expect(fake.writes()).toBe(writes);

    await simulateControllerManager(fake);
    const rolledOut = await pass();
    expect(rolledOut.error).toBeUndefined();
    expect(ready()).toMatchObject({
      status: 'True',
      reason: 'ReconciliationSucceeded',
      message: '1 ControlPlane hosts scheduled; services loadbalancer-controlplane-c1',
    });
    expect(sip()?.status?.nodes).toEqual({
      ControlPlane: { hosts: [`${NS}/cp-a`], scheduled: 1, requested: 1 },
    });
    expect(rolledOut.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'ReconciliationSucceeded', 'SIPCluster is ready'],
    ]);

    writes = fake.writes();
    const second = await pass();
    expect(second.error).toBeUndefined();
    expect(fake.writes()).toBe(writes);
    expect(second.events).toEqual([]);
  });

  it('reads a host whose networkData is YAML (the parser is loaded only for such a pass)', async () => {
    seedHost('cp-y', 'cp', '10.0.0.9', {}, 'yaml');
    seedCluster(spec());
    const first = await pass();
    expect(first.error).toBeUndefined();
    expect(owner('cp-y')?.metadata.labels?.[LABEL_CLUSTER_NAME]).toBe('c1');
    const config = fake.peek<
      KubeObject & { stringData?: Record<string, string>; data?: Record<string, string> }
    >(Kinds.Secret, { namespace: NS, name: 'loadbalancer-controlplane-c1' });
    const text =
      Object.values(config?.stringData ?? {}).join('') +
      Object.values(config?.data ?? {})
        .map((v) => Buffer.from(v, 'base64').toString())
        .join('');
    expect(text).toContain('10.0.0.9');
  });

  it('too few hosts: Unschedulable Warning, nothing deployed or labelled, retried after the waiting delay', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(spec(2));

    const { error, events } = await pass();
    expect(error).toBeInstanceOf(ReconcileError);
    expect(policy(error, sip()!)).toEqual({ requeueAfterMs: DEFAULT_RETRY_DELAYS.waitingRetryMs });
    expect(ready()).toMatchObject({ status: 'False', reason: 'Unschedulable', severity: 'Warning' });
    expect(ready()?.message).toContain('ControlPlane: 1 of 2 hosts missing');
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'Unschedulable' })]);
    expect(fake.all(Kinds.Deployment)).toEqual([]);
    expect(owner('cp-a')?.metadata.labels?.[LABEL_CLUSTER_NAME]).toBeUndefined();

    // The same failure again changes nothing and records no second Event.
    const writes = fake.writes();
    expect((await pass()).events).toEqual([]);
    expect(fake.writes()).toBe(writes);
  });

  it('a missing Secret a service names: InfraServiceFailure Error, retried after the invalid-input delay', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(
      spec(1, { jumpHost: [{ nodePort: 30002, nodeInterfaceId: 'oam', nodeSSHPrivateKeys: 'keys' }] }),
    );

    const { error } = await pass();
    expect(policy(error, sip()!)).toEqual({ requeueAfterMs: DEFAULT_RETRY_DELAYS.invalidInputRetryMs });
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'InfraServiceFailure',
      severity: 'Error',
      message: `jumpHost.nodeSSHPrivateKeys: Secret ${NS}/keys not found`,
    });
    expect(owner('cp-a')?.metadata.labels?.[LABEL_CLUSTER_NAME]).toBeUndefined();
  });

  it('a host changed since it was scheduled: UnableToApplyLabels, then backoff (a conflict is transient)', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(spec());
    fake.failOn(
      { verb: 'patch', kind: 'BareMetalHost' },
      new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' }),
    );

    const { error } = await pass();
    expect(ready()).toMatchObject({
      status: 'False',
      reason: 'UnableToApplyLabels',
      message: `BareMetalHost ${NS}/cp-a: it changed since it was scheduled`,
    });
    expect(policy(error, sip()!)).toBe('backoff');
  });

  it('a service dropped from the spec: its objects are deleted', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(
      spec(1, { jumpHost: [{ nodePort: 30002, nodeInterfaceId: 'oam', nodeSSHPrivateKeys: 'keys' }] }),
    );
    fake.seed(Kinds.Secret, { metadata: { name: 'keys', namespace: NS }, data: { id: base64('k') } });
    await pass();
    expect(fake.peek(Kinds.Deployment, { namespace: NS, name: 'jumphost-c1' })).toBeDefined();

    await fake.patch(SIPClusterKind, ref, { spec: { services: { jumpHost: null } } }, 'merge');
    expect((await pass()).error).toBeUndefined();
    expect(ready()?.reason).toBe('Progressing');
    await simulateControllerManager(fake);
    expect((await pass()).error).toBeUndefined();
    for (const kind of [Kinds.Deployment, Kinds.Service, Kinds.Secret, Kinds.ConfigMap])
      expect(fake.peek(kind, { namespace: NS, name: 'jumphost-c1' }), kind.kind).toBeUndefined();
    expect(
      fake.peek(Kinds.Deployment, { namespace: NS, name: 'loadbalancer-controlplane-c1' }),
    ).toBeDefined();
    expect(ready()?.message).toBe('1 ControlPlane hosts scheduled; services loadbalancer-controlplane-c1');
  });

  it('deletion releases the hosts, then the finalizer; the status is not written', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(spec());
    await pass();
    await fake.delete(SIPClusterKind, ref);
    const statusBefore = sip()?.status;
    const statusWrites = () => fake.calls.filter((c) => c.subresource === 'status').length;
    const before = statusWrites();

    const { error, events } = await pass();
    expect(error).toBeUndefined();
    expect(owner('cp-a')?.metadata.labels?.[LABEL_CLUSTER_NAME]).toBeUndefined();
    expect(sip()).toBeUndefined(); // the finalizer was the last one
    expect(statusWrites()).toBe(before);
    expect(statusBefore?.nodes?.['ControlPlane']?.hosts).toEqual([`${NS}/cp-a`]);
    expect(events).toEqual([
      expect.objectContaining({ reason: 'HostsReleased', message: `released ${NS}/cp-a` }),
    ]);
  });

  it('a release that fails keeps the finalizer and reports UnableToDecommission', async () => {
    seedHost('cp-a', 'cp', '10.0.0.1');
    seedCluster(spec());
    await pass();
    await fake.delete(SIPClusterKind, ref);
    fake.failOn(
      { verb: 'patch', kind: 'BareMetalHost' },
      new ApiError({ code: 403, reason: 'Forbidden', message: 'no' }),
    );

    const { error } = await pass();
    expect(policy(error, sip()!)).toEqual({ requeueAfterMs: DEFAULT_RETRY_DELAYS.waitingRetryMs });
    expect(sip()?.metadata.finalizers).toEqual([SIP_FINALIZER]);
    expect(ready()).toMatchObject({ status: 'False', reason: 'UnableToDecommission', severity: 'Warning' });
    expect(ready()?.message).toContain(`BareMetalHost ${NS}/cp-a:`);
  });
});

describe('SIPCluster error policy', () => {
  const delays = { invalidInputRetryMs: 1000, waitingRetryMs: 10 };
  const decide = sipClusterErrorPolicy(delays);
  const obj = { metadata: { name: 'x' } };
  const failure = (severity: 'Error' | 'Warning', cause?: unknown) =>
    new ReconcileError('m', { reason: 'R', severity, cause });

  // gatherHosts and reportReady read only the cache: nothing of theirs can meet an API error.
  it.each([
    ['deployServices (its Secret)', { verb: 'apply', kind: 'Secret' }, 'InfraServiceFailure'],
    ['deployServices (its Service)', { verb: 'apply', kind: 'Service' }, 'InfraServiceFailure'],
    ['deployServices (its Deployment)', { verb: 'apply', kind: 'Deployment' }, 'InfraServiceFailure'],
    ['labelHosts', { verb: 'patch', kind: 'BareMetalHost' }, 'UnableToApplyLabels'],
  ] as const)(
    'an API error in %s: Ready False (its one condition) with the step’s reason; nothing else',
    async (_step, failOn, reason) => {
      const { conditions, changed } = await stepFailure<SIPCluster>({
        world: () => {
          fake = new FakeKubeClient();
          seedHost('cp-a', 'cp', '10.0.0.1');
          seedCluster(spec());
          return fake;
        },
        kind: SIPClusterKind,
        ref,
        reconciler: () => sipClusterReconciler({ images }),
        failOn,
      });
      expect(changed).toEqual([]);
      expect(conditions).toEqual([
        expect.objectContaining({
          type: 'Ready',
          status: 'False',
          reason,
          severity: 'Warning',
        }),
      ]);
    },
  );

  it('invalid input waits the long delay, a wait the short one', () => {
    expect(decide(failure('Error'), obj)).toEqual({ requeueAfterMs: 1000 });
    expect(decide(failure('Warning'), obj)).toEqual({ requeueAfterMs: 10 });
  });

  it('transient API trouble behind a failure, and anything unexpected, back off', () => {
    expect(
      decide(failure('Error', new ApiError({ code: 503, reason: 'ServiceUnavailable', message: '' })), obj),
    ).toBe('backoff');
    expect(
      decide(failure('Warning', new ApiError({ code: 422, reason: 'Invalid', message: '' })), obj),
    ).toEqual({
      requeueAfterMs: 10,
    });
    expect(decide(new Error('bug'), obj)).toBe('backoff');
  });
});
