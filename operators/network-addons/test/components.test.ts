import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import type { NetworkAddonsConfigSpec } from '../src/api/network-addons-config.js';
import { rolloutMessages } from '../src/status/rollout.js';
import {
  condition,
  getConfig,
  managedObjects,
  StatusRecorder,
  setSpec,
  testImages,
  useNetworkAddonsSuite,
  waitAvailable,
  workloadsIn,
} from './support.js';

/** Each component's DaemonSets and Deployments (what must roll out on the fake nodes). */
const WORKLOADS: Record<string, string[]> = {
  multus: ['DaemonSet/multus'],
  multusDynamicNetworks: ['DaemonSet/dynamic-networks-controller-ds'],
  linuxBridge: ['DaemonSet/bridge-marker', 'DaemonSet/kube-cni-linux-bridge-plugin'],
  kubeMacPool: ['Deployment/kubemacpool-cert-manager', 'Deployment/kubemacpool-mac-controller-manager'],
  nmstate: ['DaemonSet/nmstate-handler'],
  ovs: ['DaemonSet/ovs-cni-amd64'],
  macvtap: ['DaemonSet/macvtap-cni'],
  kubeSecondaryDNS: ['Deployment/secondary-dns'],
  kubevirtIpamController: ['Deployment/kubevirt-ipam-controller-manager'],
};

const specFor = (component: string): NetworkAddonsConfigSpec =>
  component === 'multusDynamicNetworks' ? { multus: {}, multusDynamicNetworks: {} } : { [component]: {} };

const ALL: NetworkAddonsConfigSpec = Object.fromEntries(Object.keys(WORKLOADS).map((c) => [c, {}]));

const names = (objs: KubeObject[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`).sort();

describe('NetworkAddonsConfig components on the local control plane', () => {
  const nao = useNetworkAddonsSuite('nao-components');

  it('an empty config becomes Available at once with only the network policies', async () => {
    await setSpec(nao.client, {});
    const cr = await waitAvailable(nao.client);
    expect(cr.status?.observedVersion).toBe('0.1.0');
    expect(cr.status?.containers).toEqual([]);
    const { items } = await nao.client.list(Kinds.ConfigMap, { namespace: nao.ns });
    expect(items.map((c) => c.metadata.name)).toContain('cluster-networks-addons-operator-applied-cluster');
    expect((await workloadsIn(nao.client, nao.ns)).length).toBe(0);
  });

  for (const component of Object.keys(WORKLOADS)) {
    it(`${component} alone rolls out and becomes Available; the previous component is removed`, async () => {
      await setSpec(nao.client, specFor(component));
      const cr = await waitAvailable(nao.client);
      const expected = [
        ...WORKLOADS[component]!,
        ...(component === 'multusDynamicNetworks' ? WORKLOADS['multus']! : []),
      ];
      expect(names(await workloadsIn(nao.client, nao.ns))).toEqual(expected.sort());
      for (const w of await workloadsIn(nao.client, nao.ns)) {
        const status = w['status'] as Record<string, number>;
        if (w.kind === 'DaemonSet') {
          expect(status['desiredNumberScheduled'], w.metadata.name).toBeGreaterThan(0);
          expect(status['numberAvailable'], w.metadata.name).toBe(status['desiredNumberScheduled']);
        } else {
          expect(status['availableReplicas'], w.metadata.name).toBeGreaterThan(0);
        }
      }
      expect(cr.status?.containers?.map((c) => `${c.parentKind}/${c.parentName}`)).toEqual(
        expect.arrayContaining(expected),
      );
    });
  }

  it('all components together become Available, with the expected objects, labels and owners', async () => {
    await setSpec(nao.client, ALL, { labels: { 'app.kubernetes.io/part-of': 'hyperconverged-cluster' } });
    const cr = await waitAvailable(nao.client, 90_000);
    const workloads = await workloadsIn(nao.client, nao.ns);
    expect(names(workloads)).toEqual(Object.values(WORKLOADS).flat().sort());
    for (const w of workloads) {
      const labels = w.metadata.labels ?? {};
      expect(labels).toMatchObject({
        'networkaddonsoperator.network.kubevirt.io/version': '0.1.0',
        'app.kubernetes.io/component': 'network',
        'app.kubernetes.io/managed-by': 'cnao-operator',
        'app.kubernetes.io/part-of': 'hyperconverged-cluster',
      });
      const podLabels = (w['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template
        .metadata.labels;
      expect(podLabels).toMatchObject({
        'app.kubernetes.io/managed-by': 'cnao-operator',
        'app.kubernetes.io/component': 'network',
      });
      expect(podLabels['networkaddonsoperator.network.kubevirt.io/version']).toBeUndefined();
      expect(w.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'NetworkAddonsConfig',
          name: 'cluster',
          uid: cr.metadata.uid,
          controller: true,
        }),
      ]);
      const managers = (w.metadata as { managedFields?: { manager: string }[] }).managedFields?.map(
        (m) => m.manager,
      );
      expect(managers).toContain('stackops-network-addons-operator');
    }
    // The component images come from the operator's environment.
    const images = new Set(cr.status?.containers?.map((c) => c.image));
    expect([...images].sort()).toEqual(Object.values(testImages('v1')).sort());
    // Cluster-scoped objects are owned too; CRDs are not (they outlive the components).
    const owned = await managedObjects(nao.client, cr.metadata.uid);
    expect(owned).toEqual(
      expect.arrayContaining([
        'ClusterRole/multus',
        'ClusterRoleBinding/kubemacpool-manager-rolebinding',
        'MutatingWebhookConfiguration/kubemacpool-mutator',
        `ConfigMap/${nao.ns}/kubemacpool-mac-range-config`,
      ]),
    );
    expect(owned.some((o) => o.startsWith('CustomResourceDefinition/'))).toBe(false);
    const nad = await nao.client.get(Kinds.CustomResourceDefinition, {
      name: 'network-attachment-definitions.k8s.cni.cncf.io',
    });
    expect(nad?.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('a reconcile of an unchanged config writes nothing', async () => {
    await waitAvailable(nao.client);
    const before = nao.op.manager.client.requests.writes();
    nao.op.controller.enqueue('cluster');
    await new Promise((r) => setTimeout(r, 1500));
    await nao.op.controller.whenIdle();
    expect(nao.op.manager.client.requests.writes() - before).toBe(0);
  });

  it('sets back a field it owns that someone changed', async () => {
    const image = async () =>
      (
        await nao.client.get<
          KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }
        >(Kinds.DaemonSet, { namespace: nao.ns, name: 'multus' })
      )?.spec.template.spec.containers[0]?.image;
    const wanted = await image();
    await nao.client.patch(
      Kinds.DaemonSet,
      { namespace: nao.ns, name: 'multus' },
      {
        spec: { template: { spec: { containers: [{ name: 'kube-multus', image: 'evil/multus:latest' }] } } },
      },
      'strategic',
    );
    await waitUntil('the multus image set back', async () => (await image()) === wanted);
    // The set-back rolls the DaemonSet again: the next test starts once that rollout is over and
    // the operator has said so (it would otherwise see the rollout and report Available=False).
    await waitUntil(
      'every workload rolled out',
      async () => rolloutMessages(await workloadsIn(nao.client, nao.ns)).length === 0,
    );
    await waitAvailable(nao.client);
    await nao.op.controller.whenIdle();
  });

  it('sets back a CRD it applies without an owner reference at once, with no periodic pass', async () => {
    const nad = { name: 'network-attachment-definitions.k8s.cni.cncf.io' };
    const label = async () =>
      (await nao.client.get<KubeObject>(Kinds.CustomResourceDefinition, nad))?.metadata.labels?.[
        'app.kubernetes.io/component'
      ];
    const wanted = await label();
    expect(wanted).toBe('network');
    await nao.client.patch(
      Kinds.CustomResourceDefinition,
      nad,
      { metadata: { labels: { 'app.kubernetes.io/component': 'tampered' } } },
      'merge',
    );
    // The change itself brings the singleton back (the upstream operator's one-minute loop is gone).
    await waitUntil('the CRD label set back', async () => (await label()) === wanted, { timeoutMs: 10_000 });
    await nao.op.controller.whenIdle();
  });

  it('removing a component removes its objects and stays Available', async () => {
    const recorder = new StatusRecorder(nao.client);
    const { kubeMacPool: _kmp, linuxBridge: _lb, ...rest } = ALL;
    await setSpec(nao.client, rest);
    await waitUntil('kubemacpool and linux bridge objects removed', async () => {
      const left = names(await workloadsIn(nao.client, nao.ns));
      return !left.some((n) => n.includes('kubemacpool') || n.includes('bridge'));
    });
    const owned = await managedObjects(nao.client);
    expect(owned.filter((o) => /kubemacpool|bridge-marker|linux-bridge/.test(o))).toEqual([]);
    const cr = await waitAvailable(nao.client);
    await new Promise((r) => setTimeout(r, 1000));
    const seen = await recorder.stop();
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen)
      expect(condition(s, 'Available')?.status, JSON.stringify(s.status?.conditions)).toBe('True');
    expect(cr.spec).toEqual(rest); // defaults are never written back into the spec
    const events = await nao.client.list<KubeObject & { type: string }>(Kinds.Event, {
      namespace: 'default',
    });
    const warnings = events.items.filter(
      (e) => (e['involvedObject'] as { uid?: string }).uid === cr.metadata.uid && e.type === 'Warning',
    );
    expect(warnings).toEqual([]);
  });

  it('records upstream’s Events on the NetworkAddonsConfig', async () => {
    const cr = await getConfig(nao.client);
    const events = await nao.client.list<KubeObject & { reason: string; message: string }>(Kinds.Event, {
      namespace: 'default',
    });
    const mine = events.items.filter(
      (e) => (e['involvedObject'] as { uid?: string }).uid === cr?.metadata.uid,
    );
    expect(mine.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['Modified', 'Progressing', 'Available']),
    );
    expect(mine.find((e) => e.reason === 'Available')?.message).toBe('All applied components are available');
  });
});
