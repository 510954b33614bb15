import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { type ControlPlane, startControlPlane } from '@stackops/kube-env';
import {
  createKubeClient,
  type KindRef,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import { waitFor } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareMetalHostCrd, stackopsCrds } from '../src/crds.js';
import { applyExamples } from '../src/examples.js';
import { run } from '../src/exec.js';
import {
  KeystoneAPIKind,
  OPENSTACK_NAMESPACE,
  PlacementAPIKind,
  SIP_NAMESPACE,
  SIPClusterKind,
} from '../src/targets.js';
import { installUmbrella, RELEASE, RELEASE_NAMESPACE } from '../src/umbrella.js';

/**
 * `make uninstall` on a private cluster (it deletes CRDs, which the shared test cluster's other
 * tests need): the umbrella release with the demo's examples, beside CRDs and resources of products
 * that share our API groups. No operator runs (kwok only simulates their pods), so every finalizer
 * they set is a leftover that must not make the uninstall hang.
 */
const entry = resolve(import.meta.dirname, '../dist/uninstall-main.js');
const clusterName = `demo-uninstall-${process.pid}`;
let cp: ControlPlane;
let client: RestKubeClient;

/** CRDs of other products in the groups a pattern would catch, and one resource of each. */
const decoys: { kind: KindRef; namespace?: string }[] = [
  {
    kind: {
      group: 'kubevirt.io',
      version: 'v1',
      kind: 'VirtualMachine',
      plural: 'virtualmachines',
      namespaced: true,
    },
    namespace: 'default',
  },
  {
    kind: { group: 'kubevirt.io', version: 'v1', kind: 'KubeVirt', plural: 'kubevirts', namespaced: true },
    namespace: 'default',
  },
  {
    kind: {
      group: 'glance.openstack.org',
      version: 'v1beta1',
      kind: 'GlanceAPI',
      plural: 'glanceapis',
      namespaced: true,
    },
    namespace: OPENSTACK_NAMESPACE,
  },
  {
    kind: {
      group: 'core.openstack.org',
      version: 'v1beta1',
      kind: 'OpenStackControlPlane',
      plural: 'openstackcontrolplanes',
      namespaced: true,
    },
    namespace: OPENSTACK_NAMESPACE,
  },
  {
    kind: {
      group: 'metal3.io',
      version: 'v1alpha1',
      kind: 'HostFirmwareSettings',
      plural: 'hostfirmwaresettings',
      namespaced: true,
    },
    namespace: SIP_NAMESPACE,
  },
  {
    kind: {
      group: 'networkaddonsoperator.network.kubevirt.io',
      version: 'v1',
      kind: 'OtherAddon',
      plural: 'otheraddons',
      namespaced: false,
    },
  },
];
const BareMetalHostKind: KindRef = {
  group: 'metal3.io',
  version: 'v1alpha1',
  kind: 'BareMetalHost',
  plural: 'baremetalhosts',
  namespaced: true,
};

const crdOf = (kind: KindRef) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.plural}.${kind.group}` },
  spec: {
    group: kind.group,
    names: {
      kind: kind.kind,
      plural: kind.plural,
      singular: kind.kind.toLowerCase(),
      listKind: `${kind.kind}List`,
    },
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    versions: [
      {
        name: kind.version,
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});

const crdExists = async (name: string) =>
  (await client.get(Kinds.CustomResourceDefinition, { name })) !== undefined;

function uninstallCli(args: string[]): Promise<{ code: number | null; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [entry, '--kubeconfig', cp.kubeconfigPath, '--helm', cp.helm, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.on('exit', (code) => done({ code, out, seconds: (Date.now() - started) / 1000 }));
  });
}

async function releaseInstalled(): Promise<boolean> {
  return run(cp.helm, ['status', RELEASE, '-n', RELEASE_NAMESPACE, '--kubeconfig', cp.kubeconfigPath]).then(
    () => true,
    () => false,
  );
}

async function addFinalizers(kind: KindRef, ref: { namespace?: string; name: string }, finalizers: string[]) {
  await client.patch(kind, ref, { metadata: { finalizers } }, 'merge');
}

beforeAll(async () => {
  cp = await startControlPlane({ name: clusterName, fresh: true, ephemeral: true });
  client = createKubeClient(cp.kubeConfig, { fieldManager: 'stackops-uninstall-test' });
  await installUmbrella(cp.helm, cp.kubeconfigPath);
  await applyExamples(cp.kubectl, cp.kubeconfigPath);
  for (const d of decoys) {
    await client.create(Kinds.CustomResourceDefinition, crdOf(d.kind) as unknown as KubeObject);
    await waitFor(
      client,
      Kinds.CustomResourceDefinition,
      { name: `${d.kind.plural}.${d.kind.group}` },
      (o) =>
        ((o?.['status'] as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some(
          (c) => c.type === 'Established' && c.status === 'True',
        ),
      { timeoutMs: 30_000 },
    );
    await client.create(d.kind, {
      apiVersion: `${d.kind.group}/${d.kind.version}`,
      kind: d.kind.kind,
      metadata: { name: 'not-ours', ...(d.namespace ? { namespace: d.namespace } : {}) },
    });
  }
  // What the operators would have put there, had they run.
  await addFinalizers(KeystoneAPIKind, { namespace: OPENSTACK_NAMESPACE, name: 'keystone' }, [
    'openstack.org/keystoneapi',
    'openstack.org/keystoneservice-placement',
  ]);
  await addFinalizers(PlacementAPIKind, { namespace: OPENSTACK_NAMESPACE, name: 'placement' }, [
    'openstack.org/placementapi',
  ]);
  await addFinalizers(SIPClusterKind, { namespace: SIP_NAMESPACE, name: 'tenant-a' }, [
    'sip.airship.airshipit.org/finalizer',
  ]);
}, 600_000);

afterAll(async () => {
  client?.close();
  await cp?.stop({ purge: true });
});

describe('make uninstall', () => {
  it('stops, naming it, at a resource held by a finalizer no stackops operator sets, before the release or any CRD goes', async () => {
    // PlacementAPIs go first, so nothing of the other kinds is touched before it stops.
    const blocked = { namespace: OPENSTACK_NAMESPACE, name: 'blocked' };
    await client.create(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { ...blocked, finalizers: ['example.com/keep', 'openstack.org/placementapi'] },
      spec: { databaseInstance: 'openstack', secret: 'placement-secret' },
    });
    const { code, out } = await uninstallCli(['--timeout', '2']);
    expect(code, out).toBe(1);
    expect(out).toMatch(/PlacementAPI openstack\/blocked \(finalizers: example\.com\/keep\)/);
    expect(out).toContain('The Helm release and the CRDs were left in place');
    // Its sibling with only our finalizer (its operator is not running) did not hold anything up.
    expect(out).toContain('WARNING: PlacementAPI openstack/placement was still there');
    expect(await releaseInstalled()).toBe(true);
    for (const crd of stackopsCrds) expect(await crdExists(crd), crd).toBe(true);
    expect(
      await client.get(KeystoneAPIKind, { namespace: OPENSTACK_NAMESPACE, name: 'keystone' }),
    ).toBeDefined();
    // Someone else's controller finishes: the resource goes.
    await client.patch(PlacementAPIKind, blocked, { metadata: { finalizers: [] } }, 'merge');
  });

  it('removes the resources, the release and exactly our CRDs; leftovers of stopped operators do not hang it', async () => {
    const hostsBefore = (await client.list(BareMetalHostKind)).items.length;
    expect(hostsBefore).toBeGreaterThan(0);
    const { code, out, seconds } = await uninstallCli(['--timeout', '3']);
    expect(code, out).toBe(0);
    // Two kinds waited 3 s each, then lost their finalizers; nothing waited for anything else.
    expect(seconds).toBeLessThan(90);
    for (const forced of ['KeystoneAPI openstack/keystone', 'SIPCluster sip-demo/tenant-a'])
      expect(out).toContain(`WARNING: ${forced} was still there`);
    expect(out).toMatch(/deleting 1 NetworkAddonsConfig: NetworkAddonsConfig cluster/);
    expect(out).toContain(`helm uninstall ${RELEASE} -n ${RELEASE_NAMESPACE}`);
    expect(await releaseInstalled()).toBe(false);
    expect(
      (await client.list(Kinds.Deployment, { namespace: RELEASE_NAMESPACE })).items.map(
        (d) => d.metadata.name,
      ),
    ).toEqual([]);
    for (const crd of stackopsCrds) expect(await crdExists(crd), `${crd} deleted`).toBe(false);
    // Everything else stays, with its resources.
    for (const d of decoys) {
      expect(await crdExists(`${d.kind.plural}.${d.kind.group}`)).toBe(true);
      expect(
        await client.get(d.kind, { name: 'not-ours', ...(d.namespace ? { namespace: d.namespace } : {}) }),
      ).toBeDefined();
    }
    expect(await crdExists(bareMetalHostCrd)).toBe(true);
    expect((await client.list(BareMetalHostKind)).items.length).toBe(hostsBefore);
  });

  it("deletes metal3's BareMetalHost CRD only when asked and only when this release installed it", async () => {
    const other = await uninstallCli([
      '--timeout',
      '3',
      '--release',
      'not-stackops',
      '--delete-baremetalhost-crd',
    ]);
    expect(other.code, other.out).toBe(1);
    expect(other.out).toContain(
      `${bareMetalHostCrd} was not installed by release ${RELEASE_NAMESPACE}/not-stackops`,
    );
    expect(await crdExists(bareMetalHostCrd)).toBe(true);

    const ours = await uninstallCli(['--timeout', '3', '--delete-baremetalhost-crd']);
    expect(ours.code, ours.out).toBe(0);
    expect(await crdExists(bareMetalHostCrd)).toBe(false);
    expect(await crdExists('hostfirmwaresettings.metal3.io')).toBe(true);
  });
});
