import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import {
  eventsIn,
  PAUSED_AS_DOCUMENTED,
  pausedRoundTrip,
  scaledDeployment,
  waitUntil,
} from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { NetworkAddonsConfigKind, NetworkAddonsConfigV1alpha1Kind } from '../src/api/kinds.js';
import {
  condition,
  deleteConfig,
  getConfig,
  managedObjects,
  StatusRecorder,
  setSpec,
  testImages,
  useNetworkAddonsSuite,
  waitAvailable,
  waitForConditions,
  workloadsIn,
} from './support.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('NetworkAddonsConfig lifecycle', () => {
  const nao = useNetworkAddonsSuite('nao-lifecycle', {
    cleanup: () => deleteConfig(nao.client, 'not-cluster'),
  });

  const restart = (opts: { version?: string; tag?: string } = {}) =>
    nao.restart({ version: opts.version ?? '0.1.0', images: testImages(opts.tag ?? 'v1') });
  const range = async () =>
    (
      await nao.client.get<ConfigMap>(Kinds.ConfigMap, {
        namespace: nao.ns,
        name: 'kubemacpool-mac-range-config',
      })
    )?.data;
  const applied = async () =>
    JSON.parse(
      (
        await nao.client.get<ConfigMap>(Kinds.ConfigMap, {
          namespace: nao.ns,
          name: 'cluster-networks-addons-operator-applied-cluster',
        })
      )?.data?.['applied'] ?? '{}',
    );

  it('a v1alpha1 object is served and reconciled as v1', async () => {
    await setSpec(nao.client, { kubeMacPool: {} }, { kind: NetworkAddonsConfigV1alpha1Kind });
    const cr = await waitAvailable(nao.client);
    expect(cr.apiVersion).toBe('networkaddonsoperator.network.kubevirt.io/v1');
    const old = await nao.client.get(NetworkAddonsConfigV1alpha1Kind, { name: 'cluster' });
    expect(old?.metadata.uid).toBe(cr.metadata.uid);
  });

  it('generates a MAC range once and keeps it across spec changes and operator restarts', async () => {
    const first = await range();
    expect(first?.['RANGE_START']).toMatch(/^02:[0-9a-f]{2}:[0-9a-f]{2}:00:00:00$/);
    expect(first?.['RANGE_END']).toBe(first?.['RANGE_START']?.replace(/00:00:00$/, 'ff:ff:ff'));
    expect((await applied()).kubeMacPool).toEqual({
      rangeStart: first?.['RANGE_START'],
      rangeEnd: first?.['RANGE_END'],
    });
    expect((await getConfig(nao.client))?.spec).toEqual({ kubeMacPool: {} });

    await restart();
    await setSpec(nao.client, { kubeMacPool: {}, linuxBridge: {} });
    await waitAvailable(nao.client);
    await restart();
    await setSpec(nao.client, { kubeMacPool: {} });
    await waitAvailable(nao.client);
    expect(await range()).toEqual(first);
  });

  it('deleting the applied-config ConfigMap keeps the generated range (from status) and says so in an Event', async () => {
    const first = await range();
    expect((await getConfig(nao.client))?.status?.kubeMacPoolRange).toEqual({
      rangeStart: first?.['RANGE_START'],
      rangeEnd: first?.['RANGE_END'],
    });
    const appliedRef = { namespace: nao.ns, name: 'cluster-networks-addons-operator-applied-cluster' };
    const before = await nao.client.get(Kinds.ConfigMap, appliedRef);
    await nao.client.delete(Kinds.ConfigMap, appliedRef);
    await waitUntil('the applied-config ConfigMap written again', async () => {
      const cm = await nao.client.get(Kinds.ConfigMap, appliedRef);
      return cm !== undefined && cm.metadata.uid !== before?.metadata.uid;
    });
    expect((await applied()).kubeMacPool).toEqual({
      rangeStart: first?.['RANGE_START'],
      rangeEnd: first?.['RANGE_END'],
    });
    expect(await range()).toEqual(first);
    // A pass sends its Events after its writes without waiting for them: the Event may come later.
    const said = `KubeMacPool range ${first?.['RANGE_START']}-${first?.['RANGE_END']} kept from status`;
    await waitUntil(`an AppliedConfigMissing Event saying: ${said}`, async () =>
      (await eventsIn(nao.client, 'default')).some(
        (e) => e.reason === 'AppliedConfigMissing' && e.message?.includes(said),
      ),
    );
  });

  it('an explicit range replaces the generated one on day 2, verbatim', async () => {
    await setSpec(nao.client, {
      kubeMacPool: { rangeStart: '02:20:20:00:00:00', rangeEnd: '02:20:20:00:FF:FF' },
    });
    await waitAvailable(nao.client);
    await waitUntil(
      'the new range in the KubeMacPool ConfigMap',
      async () => (await range())?.['RANGE_END'] === '02:20:20:00:FF:FF',
    );
    expect(await range()).toEqual({ RANGE_START: '02:20:20:00:00:00', RANGE_END: '02:20:20:00:FF:FF' });
  });

  it('deleting the CR removes everything; recreating it deploys again from scratch', async () => {
    // With multus the CR renders a CRD, so the check below is about one this CR applied.
    await setSpec(nao.client, { ...(await getConfig(nao.client))?.spec, multus: {} });
    await waitAvailable(nao.client);
    const nadCrd = { name: 'network-attachment-definitions.k8s.cni.cncf.io' };
    expect(await nao.client.get(Kinds.CustomResourceDefinition, nadCrd)).toBeDefined();
    const before = await getConfig(nao.client);
    const owned = await managedObjects(nao.client, before?.metadata.uid);
    expect(owned.length).toBeGreaterThan(5);
    await deleteConfig(nao.client);
    expect(await workloadsIn(nao.client, nao.ns)).toEqual([]);
    // CRDs stay: they may hold other users' objects.
    expect(await nao.client.get(Kinds.CustomResourceDefinition, nadCrd)).toBeDefined();

    await setSpec(nao.client, { kubeMacPool: {}, linuxBridge: {} });
    const cr = await waitAvailable(nao.client);
    expect(cr.metadata.uid).not.toBe(before?.metadata.uid);
    expect((await workloadsIn(nao.client, nao.ns)).map((w) => w.metadata.name).sort()).toEqual([
      'bridge-marker',
      'kube-cni-linux-bridge-plugin',
      'kubemacpool-cert-manager',
      'kubemacpool-mac-controller-manager',
    ]);
    // A fresh CR starts afresh: the explicit range of the old one is not carried over.
    expect((await range())?.['RANGE_START']).toMatch(/^02:[0-9a-f]{2}:[0-9a-f]{2}:00:00:00$/);
    for (const w of await workloadsIn(nao.client, nao.ns))
      expect(w.metadata.ownerReferences?.[0]?.uid).toBe(cr.metadata.uid);
  });

  it('a NetworkAddonsConfig not named cluster gets a condition saying it is ignored, and nothing else', async () => {
    await setSpec(nao.client, { multus: {} }, { name: 'not-cluster' });
    const ignored = await waitForConditions(
      nao.client,
      { Degraded: { status: 'True', reason: 'Ignored' }, Available: 'False' },
      30_000,
      'not-cluster',
    );
    expect(condition(ignored, 'Degraded')?.message).toBe(
      'NetworkAddonsConfig "not-cluster" is ignored: only the one named "cluster" is acted on',
    );
    expect(await managedObjects(nao.client, ignored.metadata.uid)).toEqual([]);
    // Two NetworkAddonsConfigs side by side: a bounded number of writes over a 10 s window.
    await new Promise((r) => setTimeout(r, 1_000));
    const writesBefore = nao.op.manager.client.requests.writes();
    await new Promise((r) => setTimeout(r, 10_000));
    expect(nao.op.manager.client.requests.writes() - writesBefore).toBeLessThanOrEqual(2);
    await nao.client.delete(NetworkAddonsConfigKind, { name: 'not-cluster' });
  });

  it('a new operator version re-renders, is Progressing until rolled out, then moves observedVersion', async () => {
    await setSpec(nao.client, { kubeMacPool: {}, linuxBridge: {}, multus: {} });
    const old = await waitAvailable(nao.client);
    expect(old.status).toMatchObject({
      operatorVersion: '0.1.0',
      targetVersion: '0.1.0',
      observedVersion: '0.1.0',
    });
    const rangeBefore = await range();

    await nao.stop();
    // Operands keep running while no operator runs.
    await new Promise((r) => setTimeout(r, 1000));
    expect(condition(await getConfig(nao.client), 'Available')?.status).toBe('True');

    const recorder = new StatusRecorder(nao.client);
    await restart({ version: '0.2.0', tag: 'v2' });
    const upgraded = await waitUntil(
      'observedVersion 0.2.0',
      async () => {
        const cr = await getConfig(nao.client);
        return cr?.status?.observedVersion === '0.2.0' && condition(cr, 'Available')?.status === 'True'
          ? cr
          : undefined;
      },
      { timeoutMs: 90_000, describe: async () => (await getConfig(nao.client))?.status },
    );
    const seen = await recorder.stop();
    // In between: the new target reported at once, Progressing, the old observed version kept.
    expect(
      seen.some(
        (s) =>
          s.status?.targetVersion === '0.2.0' &&
          s.status.operatorVersion === '0.2.0' &&
          s.status.observedVersion === '0.1.0' &&
          condition(s, 'Progressing')?.status === 'True' &&
          condition(s, 'Available')?.status === 'False',
      ),
      JSON.stringify(seen.map((s) => s.status)),
    ).toBe(true);
    // Non-empty first: `every` and the loops below pass on empty lists.
    expect(upgraded.status?.containers?.length).toBeGreaterThan(0);
    expect(upgraded.status?.containers?.every((c) => c.image.endsWith(':v2'))).toBe(true);
    const workloads = await workloadsIn(nao.client, nao.ns);
    expect(workloads.length).toBeGreaterThan(0);
    for (const w of workloads) {
      expect(w.metadata.labels?.['networkaddonsoperator.network.kubevirt.io/version'], w.metadata.name).toBe(
        '0.2.0',
      );
    }
    const { items: configMaps } = await nao.client.list(Kinds.ConfigMap, {
      namespace: nao.ns,
      labelSelector: 'app.kubernetes.io/managed-by=cnao-operator',
    });
    expect(configMaps.length).toBeGreaterThan(0);
    for (const c of configMaps) {
      expect(c.metadata.labels?.['networkaddonsoperator.network.kubevirt.io/version'], c.metadata.name).toBe(
        '0.2.0',
      );
    }
    // Generated values survive the upgrade.
    expect(await range()).toEqual(rangeBefore);
  });

  it('openstack.org/paused="false" pauses (as upstream): nothing written while set, a condition and Events say so, put right once removed', async () => {
    await setSpec(nao.client, { kubeMacPool: {} });
    await waitAvailable(nao.client);
    const outcome = await pausedRoundTrip({
      client: nao.client,
      operatorClient: nao.running?.manager.client ?? nao.client,
      kind: NetworkAddonsConfigKind,
      ref: { name: 'cluster' },
      // The operands' namespace, cluster-scoped objects (the config's status among them) and
      // `default`, where the Events of a cluster-scoped object go.
      namespaces: [nao.ns, undefined, 'default'],
      value: 'false',
      ...scaledDeployment(nao.client, { namespace: nao.ns, name: 'kubemacpool-mac-controller-manager' }),
    });
    expect(outcome).toEqual(PAUSED_AS_DOCUMENTED);
  });
});
