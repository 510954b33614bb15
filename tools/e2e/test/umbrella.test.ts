import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { stackopsCrds } from '@stackops/demo/crds';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import {
  KeystoneAPIKind,
  NetworkAddonsConfigKind,
  OPENSTACK_NAMESPACE,
  SIP_NAMESPACE,
  SIPClusterKind,
} from '@stackops/demo/targets';
import { chartAliases, RELEASE, RELEASE_NAMESPACE } from '@stackops/demo/umbrella';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitFor } from '@stackops/lib-common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  applyExample,
  type CrRef,
  cleanUp,
  deleteNamespaces,
  expectRunsForReal,
  helm,
  helmInstall,
  kubeconfigPath,
  readyPods,
  realNodes,
  repoRoot,
  waitForCondition,
} from './support.js';

/**
 * The umbrella chart installs all four operators, two replicas each, as pods on the two real nodes
 * (one per node, one leader each); they converge the
 * examples together; then `make uninstall`, with the operators still running, deletes the custom
 * resources through them (each releases its own finalizers: nothing is forced), the release, and
 * the CRDs.
 */
type Lease = KubeObject & { spec?: { holderIdentity?: string } };
const client = adminClient();
const samples: CrRef[] = [
  { kind: KeystoneAPIKind, namespace: OPENSTACK_NAMESPACE, name: 'keystone' },
  { kind: NetworkAddonsConfigKind, name: 'cluster' },
  { kind: SIPClusterKind, namespace: SIP_NAMESPACE, name: 'tenant-a' },
];
afterAll(async () => {
  await cleanUp(client, samples, [{ release: RELEASE, namespace: RELEASE_NAMESPACE }]);
  await deleteNamespaces(client, [OPENSTACK_NAMESPACE, SIP_NAMESPACE, RELEASE_NAMESPACE]);
  client.close();
});

function uninstallCli(): Promise<{ code: number | null; out: string }> {
  const entry = resolve(repoRoot, 'tools/demo/dist/uninstall-main.js');
  return new Promise((done) => {
    const child = spawn(process.execPath, [entry, '--kubeconfig', kubeconfigPath, '--timeout', '120'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.on('exit', (code) => done({ code, out }));
  });
}

describe('the umbrella chart on the real nodes', () => {
  it('runs all four operators, two replicas each on different nodes with one leader each, as Ready pods from the built images; make uninstall removes everything through them', async () => {
    const values: Record<string, unknown> = { sip: { installBareMetalHostCRD: true } };
    // Two replicas each: the charts then spread them over the nodes (preferred anti-affinity),
    // ship a PodDisruptionBudget, and turn leader election on.
    for (const alias of Object.values(chartAliases))
      values[alias] = { ...(values[alias] as object | undefined), ...operatorOnRealNodeValues, replicas: 2 };
    // The umbrella's file:// dependencies are packaged into charts/stackops/charts/ here: nothing
    // else in this run is relied on to have done it.
    await helm(['dependency', 'build', resolve(repoRoot, 'charts/stackops'), '--skip-refresh']);
    await helmInstall(RELEASE, 'stackops', RELEASE_NAMESPACE, values);
    const pods = await readyPods(client, RELEASE_NAMESPACE, RELEASE, 8);
    for (const [operator, alias] of Object.entries(chartAliases)) {
      const mine = pods.filter((p) => p.metadata.labels?.['app.kubernetes.io/name'] === alias);
      expect(mine.length, `${alias} pods`).toBe(2);
      for (const pod of mine) expect(expectRunsForReal(pod, operator)).toEqual([]);
      expect(mine.map((p) => p.spec.nodeName).sort(), `${alias} pods' nodes`).toEqual([...realNodes].sort());
      // One leader: the Lease names one of the two pods.
      const lease = await waitFor<Lease>(
        client,
        Kinds.Lease,
        { namespace: RELEASE_NAMESPACE, name: `${operator}-operator-leader` },
        (l) => mine.some((p) => l?.spec?.holderIdentity?.startsWith(`${p.metadata.name}_`)),
        { timeoutMs: 60_000 },
      );
      expect(mine.filter((p) => lease?.spec?.holderIdentity?.startsWith(`${p.metadata.name}_`)).length).toBe(
        1,
      );
      const { items: pdbs } = await client.list<KubeObject & { spec?: { maxUnavailable?: number } }>(
        Kinds.PodDisruptionBudget,
        { namespace: RELEASE_NAMESPACE, labelSelector: `app.kubernetes.io/name=${alias}` },
      );
      expect(
        pdbs.map((p) => p.spec?.maxUnavailable),
        `${alias} PodDisruptionBudget`,
      ).toEqual([1]);
    }

    // PlacementAPI is left out: it registers in Keystone, and no Keystone serves this cluster.
    await applyExample('00-openstack-prereqs.yaml', OPENSTACK_NAMESPACE);
    await applyExample('10-keystoneapi.yaml', OPENSTACK_NAMESPACE);
    await applyExample('30-networkaddonsconfig.yaml');
    await applyExample('40-sipcluster.yaml');
    await waitForCondition(
      client,
      KeystoneAPIKind,
      { namespace: OPENSTACK_NAMESPACE, name: 'keystone' },
      'Ready',
      'True',
    );
    await waitForCondition(client, NetworkAddonsConfigKind, { name: 'cluster' }, 'Available', 'True');
    await waitForCondition(
      client,
      SIPClusterKind,
      { namespace: SIP_NAMESPACE, name: 'tenant-a' },
      'Ready',
      'True',
    );

    const { code, out } = await uninstallCli();
    expect(code, out).toBe(0);
    for (const deleted of [
      'KeystoneAPI openstack/keystone',
      'NetworkAddonsConfig cluster',
      'SIPCluster sip-demo/tenant-a',
    ])
      expect(out).toContain(deleted);
    expect(out).not.toContain('WARNING');
    expect(out).toContain(
      `done: 3 custom resources deleted, 0 forced, release uninstalled, ${stackopsCrds.length} CRDs deleted`,
    );
    for (const crd of stackopsCrds)
      expect(await client.get(Kinds.CustomResourceDefinition, { name: crd }), crd).toBeUndefined();
    // The operators stop on SIGTERM and their pods go.
    const deadline = Date.now() + 60_000;
    let left = (await client.list(Kinds.Pod, { namespace: RELEASE_NAMESPACE })).items;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      left = (await client.list(Kinds.Pod, { namespace: RELEASE_NAMESPACE })).items;
    }
    expect(left.map((p) => p.metadata.name)).toEqual([]);
  });
});
