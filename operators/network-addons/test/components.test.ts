import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkAddonsConfigSpec } from '../src/api/network-addons-config.js';
import { rolloutMessages } from '../src/status/rollout.js';
import {
  condition,
  createNamespace,
  deleteConfig,
  getConfig,
  installCrd,
  managedObjects,
  type RunningOperator,
  StatusRecorder,
  setSpec,
  startOperator,
  testClient,
  testImages,
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
  let client: RestKubeClient;
  let ns: string;
  let op: RunningOperator;

  beforeAll(async () => {
    client = testClient();
    await installCrd(client);
    await deleteConfig(client);
    ns = await createNamespace(client, 'nao-components');
    op = await startOperator({ namespace: ns, images: testImages('v1') });
  });

  afterAll(async () => {
    await op?.stop();
    await deleteConfig(client);
    await client.delete(Kinds.Namespace, { name: ns });
    client.close();
  });

  it('an empty config becomes Available at once with only the network policies', async () => {
    await setSpec(client, {});
    const cr = await waitAvailable(client);
    expect(cr.status?.observedVersion).toBe('0.1.0');
    expect(cr.status?.containers).toEqual([]);
    const { items } = await client.list(Kinds.ConfigMap, { namespace: ns });
    expect(items.map((c) => c.metadata.name)).toContain('cluster-networks-addons-operator-applied-cluster');
    expect((await workloadsIn(client, ns)).length).toBe(0);
  });

  for (const component of Object.keys(WORKLOADS)) {
    it(`${component} alone rolls out and becomes Available; the previous component is removed`, async () => {
      await setSpec(client, specFor(component));
      const cr = await waitAvailable(client);
      const expected = [
        ...WORKLOADS[component]!,
        ...(component === 'multusDynamicNetworks' ? WORKLOADS['multus']! : []),
      ];
      expect(names(await workloadsIn(client, ns))).toEqual(expected.sort());
      for (const w of await workloadsIn(client, ns)) {
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
    await setSpec(client, ALL, { labels: { 'app.kubernetes.io/part-of': 'hyperconverged-cluster' } });
    const cr = await waitAvailable(client, 90_000);
    const workloads = await workloadsIn(client, ns);
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
    const owned = await managedObjects(client, cr.metadata.uid);
    expect(owned).toEqual(
      expect.arrayContaining([
        'ClusterRole/multus',
        'ClusterRoleBinding/kubemacpool-manager-rolebinding',
        'MutatingWebhookConfiguration/kubemacpool-mutator',
        `ConfigMap/${ns}/kubemacpool-mac-range-config`,
      ]),
    );
    expect(owned.some((o) => o.startsWith('CustomResourceDefinition/'))).toBe(false);
    const nad = await client.get(Kinds.CustomResourceDefinition, {
      name: 'network-attachment-definitions.k8s.cni.cncf.io',
    });
    expect(nad?.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('a reconcile of an unchanged config writes nothing', async () => {
    await waitAvailable(client);
    const before = op.manager.client.requests.writes();
    op.controller.enqueue('cluster');
    await new Promise((r) => setTimeout(r, 1500));
    await op.controller.whenIdle();
    expect(op.manager.client.requests.writes() - before).toBe(0);
  });

  it('sets back a field it owns that someone changed', async () => {
    const image = async () =>
      (
        await client.get<KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }>(
          Kinds.DaemonSet,
          { namespace: ns, name: 'multus' },
        )
      )?.spec.template.spec.containers[0]?.image;
    const wanted = await image();
    await client.patch(
      Kinds.DaemonSet,
      { namespace: ns, name: 'multus' },
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
      async () => rolloutMessages(await workloadsIn(client, ns)).length === 0,
    );
    await waitAvailable(client);
    await op.controller.whenIdle();
  });

  it('removing a component removes its objects and stays Available', async () => {
    const recorder = new StatusRecorder(client);
    const { kubeMacPool: _kmp, linuxBridge: _lb, ...rest } = ALL;
    await setSpec(client, rest);
    await waitUntil('kubemacpool and linux bridge objects removed', async () => {
      const left = names(await workloadsIn(client, ns));
      return !left.some((n) => n.includes('kubemacpool') || n.includes('bridge'));
    });
    const owned = await managedObjects(client);
    expect(owned.filter((o) => /kubemacpool|bridge-marker|linux-bridge/.test(o))).toEqual([]);
    const cr = await waitAvailable(client);
    await new Promise((r) => setTimeout(r, 1000));
    const seen = await recorder.stop();
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen)
      expect(condition(s, 'Available')?.status, JSON.stringify(s.status?.conditions)).toBe('True');
    expect(cr.spec).toEqual(rest); // defaults are never written back into the spec
    const events = await client.list<KubeObject & { type: string }>(Kinds.Event, { namespace: 'default' });
    const warnings = events.items.filter(
      (e) => (e['involvedObject'] as { uid?: string }).uid === cr.metadata.uid && e.type === 'Warning',
    );
    expect(warnings).toEqual([]);
  });

  it('records upstream’s Events on the NetworkAddonsConfig', async () => {
    const cr = await getConfig(client);
    const events = await client.list<KubeObject & { reason: string; message: string }>(Kinds.Event, {
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
