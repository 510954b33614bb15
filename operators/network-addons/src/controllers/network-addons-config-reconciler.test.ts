import { ApiError, type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { FakeKubeClient, reconcileOnce, stepFailure } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../api/kinds.js';
import type { NetworkAddonsConfigSpec } from '../api/network-addons-config.js';
import { DEFAULT_IMAGES } from '../config/images.js';
import { CERT_MANAGER_KINDS, RENDERED_KINDS } from '../resources/kinds.js';
import { networkAddonsConfigReconciler } from './network-addons-config-reconciler.js';

const NS = 'cnao';

/** cert-manager's API as the controller's watches of its CRDs see it: served, absent, or not known yet. */
type CertManager = 'served' | 'absent' | 'unknown';

function setup(opts: { certManager?: CertManager } = {}) {
  const fake = new FakeKubeClient({ fieldManager: 'stackops-network-addons-operator' });
  const kinds = [...RENDERED_KINDS, ...CERT_MANAGER_KINDS];
  const reconcile = networkAddonsConfigReconciler(
    {
      env: { operatorNamespace: NS, operandNamespace: NS, operatorVersion: '1.2.3', images: DEFAULT_IMAGES },
      random: (n) => new Uint8Array(n).fill(7),
    },
    () => new Date('2024-05-06T07:08:09.123Z'),
  );
  const state = { certManager: opts.certManager ?? 'absent' };
  // The cache holds only what the controller watches, as the manager's would; cert-manager's kinds
  // answer as the controller's reader does for optional kinds (their CRDs' watches).
  const watched = fake.cache([NetworkAddonsConfigKind, ...kinds, Kinds.Pod]);
  const cache = {
    get: watched.get.bind(watched),
    list: watched.list.bind(watched),
    servedOptional: (kind: KindRef) =>
      CERT_MANAGER_KINDS.includes(kind) && state.certManager !== 'unknown'
        ? state.certManager === 'served'
        : undefined,
  };
  const run = (name = 'cluster') =>
    reconcileOnce(fake, NetworkAddonsConfigKind, { name }, reconcile, { cache });
  const setSpec = async (spec: NetworkAddonsConfigSpec, name = 'cluster') => {
    const live = fake.peek<NetworkAddonsConfig>(NetworkAddonsConfigKind, { name });
    if (live) await fake.replace(NetworkAddonsConfigKind, { ...live, spec });
    else fake.seed(NetworkAddonsConfigKind, { metadata: { name }, spec });
  };
  const config = (name = 'cluster') => fake.peek<NetworkAddonsConfig>(NetworkAddonsConfigKind, { name });
  const conditions = (name = 'cluster') =>
    Object.fromEntries(
      (config(name)?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason ?? ''}`]),
    );
  const managed = () => kinds.flatMap((k) => fake.all(k).map((o) => `${k.kind}/${o.metadata.name}`)).sort();
  return { fake, reconcile, run, setSpec, config, conditions, managed, state };
}

describe('NetworkAddonsConfig reconciler (fake API server)', () => {
  it('ignores a NetworkAddonsConfig not named cluster, saying so in its status', async () => {
    const t = setup();
    await t.setSpec({ multus: {} }, 'other');
    const { result } = await t.run('other');
    expect(result).toEqual({});
    expect(t.managed()).toEqual([]);
    expect(t.conditions('other')).toEqual({
      Available: 'False/Ignored',
      Progressing: 'False/Ignored',
      Degraded: 'True/Ignored',
    });
  });

  it('an invalid spec is Degraded with FailedToValidate, deploys nothing and is not retried', async () => {
    const t = setup();
    await t.setSpec({ kubeMacPool: { rangeStart: '02:00:00:00:00:00' } });
    const { result, events } = await t.run();
    expect(result).toEqual({});
    expect(t.managed()).toEqual([]);
    expect(t.conditions()).toMatchObject({ Degraded: 'True/FailedToValidate', Available: 'False/Failing' });
    expect(events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning Failed: FailedToValidate']);
  });

  it('deploys the enabled components, reports Progressing without polling, and then writes nothing on an unchanged pass', async () => {
    const t = setup();
    await t.setSpec({ multus: {} });
    const first = await t.run();
    // No timer of its own: the rollout comes back through the watched workloads and pods.
    expect(first.result).toEqual({});
    expect(t.managed()).toContain('DaemonSet/multus');
    expect(t.managed()).toContain('ConfigMap/cluster-networks-addons-operator-applied-cluster');
    expect(t.conditions()).toEqual({
      Available: 'False/Startup',
      Progressing: 'True/Deploying',
      Degraded: 'False/',
    });
    expect(first.events.map((e) => e.reason)).toEqual(['Modified', 'Progressing']);
    const ds = t.fake.peek<KubeObject>(Kinds.DaemonSet, { namespace: NS, name: 'multus' });
    expect(ds?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'NetworkAddonsConfig',
      controller: true,
    });

    const writes = t.fake.writes();
    const second = await t.run();
    expect(t.fake.writes()).toBe(writes);
    expect(second.events).toEqual([]);
  });

  it('applies CRDs without an owner, so they outlive the NetworkAddonsConfig', async () => {
    const t = setup();
    await t.setSpec({ multus: {} });
    await t.run();
    const crds = t.fake.all<KubeObject>(Kinds.CustomResourceDefinition);
    expect(crds.length).toBeGreaterThan(0);
    for (const crd of crds) expect(crd.metadata.ownerReferences, crd.metadata.name).toBeUndefined();
  });

  it('removes the objects of a component taken out of the spec, and keeps the rest', async () => {
    const t = setup();
    await t.setSpec({ multus: {}, linuxBridge: {} });
    await t.run();
    expect(t.managed()).toContain('DaemonSet/bridge-marker');
    await t.setSpec({ multus: {} });
    await t.run();
    expect(t.managed()).not.toContain('DaemonSet/bridge-marker');
    expect(t.managed()).toContain('DaemonSet/multus');
  });

  it('refuses an unsafe change (image pull policy) and keeps what was deployed', async () => {
    const t = setup();
    await t.setSpec({ multus: {}, imagePullPolicy: 'Always' });
    await t.run();
    const before = t.managed();
    await t.setSpec({ multus: {}, imagePullPolicy: 'IfNotPresent' });
    const { result } = await t.run();
    expect(result).toEqual({});
    expect(t.conditions()).toMatchObject({ Degraded: 'True/FailedToGetPreviousConfigSpec' });
    expect(t.managed()).toEqual(before);
  });

  it('a failed apply is Degraded with FailedToApply and retried with backoff', async () => {
    const t = setup();
    await t.setSpec({ multus: {} });
    t.fake.failOn(
      { verb: 'apply', kind: 'DaemonSet' },
      new ApiError({ code: 500, reason: 'InternalError', message: 'etcd is sad' }),
    );
    const err = await t.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconcileError);
    expect((err as ReconcileError).retry).toBe('backoff');
    expect((err as Error).message).toMatch(
      /^could not apply \(apps\/v1, Kind=DaemonSet\) cnao\/multus \(multus\): etcd is sad$/,
    );
    expect(t.conditions()).toMatchObject({ Degraded: 'True/FailedToApply' });
  });

  // The other steps validate, fill, render and track from the CR and the cache: no API call of theirs
  // can fail. A failure is Degraded True with the step's reason, and so Available and Progressing
  // False (upstream's ClusterOperator-style trio); no other status changes.
  it.each([
    ['applyObjects', { verb: 'apply', kind: 'DaemonSet' }, 'FailedToApply', {}],
    [
      'pruneStaleObjects',
      { verb: 'delete', kind: 'DaemonSet' },
      'FailedToDeleteObjects',
      { linuxBridge: {} },
    ],
  ] as const)(
    'an API error in %s: Degraded with the step’s reason',
    async (_step, failOn, reason, before) => {
      const { conditions, changed } = await stepFailure<NetworkAddonsConfig>({
        world: async () => {
          const w = setup();
          if (Object.keys(before).length > 0) {
            await w.setSpec({ multus: {}, ...before });
            await w.run();
          }
          await w.setSpec({ multus: {} });
          return w.fake;
        },
        kind: NetworkAddonsConfigKind,
        ref: { name: 'cluster' },
        reconciler: () => setup().reconcile,
        failOn,
      });
      expect(changed.sort()).toEqual(['Available', 'Degraded', 'Progressing']);
      expect(Object.fromEntries(conditions.map((c) => [c.type, `${c.status}/${c.reason}`]))).toEqual({
        Degraded: `True/${reason}`,
        Available: 'False/Failing',
        Progressing: 'False/InvalidConfiguration',
      });
    },
  );

  it('renders the ipam controller with cert-manager once its API is served, and without it again once it is gone', async () => {
    const t = setup({ certManager: 'absent' });
    await t.setSpec({ kubevirtIpamController: {} });
    await t.run();
    const webhook = () =>
      t.fake.peek<KubeObject>(Kinds.MutatingWebhookConfiguration, {
        name: 'kubevirt-ipam-controller-mutating-webhook-configuration',
      });
    expect(t.managed().filter((o) => o.startsWith('Certificate/') || o.startsWith('Issuer/'))).toEqual([]);
    expect(webhook()?.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBeUndefined();

    t.state.certManager = 'served';
    await t.run();
    expect(t.managed().filter((o) => o.startsWith('Certificate/') || o.startsWith('Issuer/'))).toEqual([
      'Certificate/kubevirt-ipam-controller-serving-cert',
      'Issuer/kubevirt-ipam-controller-selfsigned-issuer',
    ]);
    expect(webhook()?.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(
      `${NS}/kubevirt-ipam-controller-serving-cert`,
    );

    t.state.certManager = 'absent';
    await t.run();
    expect(webhook()?.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBeUndefined();
  });

  it('while cert-manager is not known yet, the ipam controller waits (Degraded, retried) and other components deploy', async () => {
    const t = setup({ certManager: 'unknown' });
    await t.setSpec({ kubevirtIpamController: {} });
    const err = await t.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReconcileError);
    expect((err as ReconcileError).retry).toBe('backoff');
    expect((err as Error).message).toBe(
      "failed to render kubevirtIpamController: not known yet whether cert-manager's API is served " +
        '(CRDs certificates.cert-manager.io, issuers.cert-manager.io); retrying',
    );
    expect(t.conditions()).toMatchObject({ Degraded: 'True/FailedToRender' });

    const u = setup({ certManager: 'unknown' });
    await u.setSpec({ multus: {} });
    await u.run();
    expect(u.managed()).toContain('DaemonSet/multus');
  });

  it('leaves a deleted NetworkAddonsConfig to garbage collection', async () => {
    const t = setup();
    t.fake.seed(NetworkAddonsConfigKind, {
      metadata: { name: 'cluster', deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['other/x'] },
      spec: { multus: {} },
    });
    const { result } = await t.run();
    expect(result).toEqual({});
    expect(t.fake.writes()).toBe(0);
  });
});
