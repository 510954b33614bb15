import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { stackopsCrds } from '@stackops/demo/crds';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import {
  keystoneTarget,
  networkAddonsTarget,
  OPENSTACK_NAMESPACE,
  SIP_NAMESPACE,
  sipTarget,
} from '@stackops/demo/targets';
import { chartAliases, RELEASE, RELEASE_NAMESPACE } from '@stackops/demo/umbrella';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitFor } from '@stackops/lib-common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  applyExample,
  cleanUp,
  deleteNamespaces,
  expectRunsForReal,
  helm,
  helmInstall,
  jsonLogs,
  kubeconfigPath,
  type PodShape,
  readyPods,
  realNodes,
  repoRoot,
  scrapeMetrics,
  waitForCondition,
} from './support.js';

/**
 * The umbrella chart installs all four operators, two replicas each, on the two real nodes (one per
 * node, one leader per operator), in both modes (ADR 0044): `separate`, a pod per operator, and
 * `combined`, one pod running all four (each operator still with its own Lease). They converge the
 * examples together; then `make uninstall`, with the operators still running, deletes the custom
 * resources through them (each releases its own finalizers: nothing is forced), the release, and
 * the CRDs. Each mode prints its idle RSS (the pods' own /metrics) and start-up (process start to
 * caches synced, from their logs): the figures ADR 0044 chose the default from.
 */
type Lease = KubeObject & { spec?: { holderIdentity?: string } };
const client = adminClient();
// PlacementAPI is left out: it registers in Keystone, and no Keystone serves this cluster.
const samples = [keystoneTarget, networkAddonsTarget, sipTarget];
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

type Mode = 'combined' | 'separate';
const operators = Object.keys(chartAliases) as (keyof typeof chartAliases)[];

/** The pods of one operator (separate) or the combined pods, and which image they run. */
function podGroups(mode: Mode, pods: PodShape[]): { label: string; image: string; pods: PodShape[] }[] {
  const named = (name: string) => pods.filter((p) => p.metadata.labels?.['app.kubernetes.io/name'] === name);
  return mode === 'combined'
    ? [{ label: 'stackops-operators', image: 'combined', pods: named('stackops-operators') }]
    : Object.entries(chartAliases).map(([operator, alias]) => ({
        label: alias,
        image: operator,
        pods: named(alias),
      }));
}

/** Idle RSS (MiB, from the pod's /metrics) and start-up (ms from process start to caches synced, from its logs). */
async function measure(pod: PodShape): Promise<{ rssMiB: number; readyMs: number; names: Set<string> }> {
  const metrics = await scrapeMetrics(pod.status?.podIP, RELEASE_NAMESPACE, RELEASE);
  expect(metrics.status).toBe(200);
  const rss = /^process_resident_memory_bytes (\S+)$/m.exec(metrics.body)?.[1];
  const logs = await jsonLogs(RELEASE_NAMESPACE, pod.metadata.name ?? '');
  const synced = logs.find((l) => l['msg'] === 'caches synced');
  expect(synced, `${pod.metadata.name}: "caches synced" logged`).toBeDefined();
  return {
    rssMiB: Number(rss) / 2 ** 20,
    readyMs: Number(synced?.['uptimeMs']),
    names: new Set(logs.map((l) => String(l['name']))),
  };
}

describe.each<Mode>(['combined', 'separate'])(
  'the umbrella chart on the real nodes, operators.mode %s',
  (mode) => {
    it('runs all four operators, two replicas on different nodes with one leader per operator, as Ready pods from the built images; make uninstall removes everything through them', async () => {
      const values: Record<string, unknown> = {
        global: { operators: { mode } },
        sip: { installBareMetalHostCRD: true },
      };
      // Two replicas: the charts then spread them over the nodes (preferred anti-affinity), ship a
      // PodDisruptionBudget, and turn leader election on.
      const onNodes = { ...operatorOnRealNodeValues, replicas: 2 };
      if (mode === 'combined') values['operators'] = onNodes;
      else
        for (const alias of Object.values(chartAliases))
          values[alias] = { ...(values[alias] as object | undefined), ...onNodes };
      // The umbrella's file:// dependencies are packaged into charts/stackops/charts/ here: nothing
      // else in this run is relied on to have done it.
      await helm(['dependency', 'build', resolve(repoRoot, 'charts/stackops'), '--skip-refresh']);
      await helmInstall(RELEASE, 'stackops', RELEASE_NAMESPACE, values);
      const pods = await readyPods(client, RELEASE_NAMESPACE, RELEASE, mode === 'combined' ? 2 : 8);
      const groups = podGroups(mode, pods);
      for (const { label, image, pods: mine } of groups) {
        expect(mine.length, `${label} pods`).toBe(2);
        for (const pod of mine) expect(expectRunsForReal(pod, image)).toEqual([]);
        expect(mine.map((p) => p.spec.nodeName).sort(), `${label} pods' nodes`).toEqual(
          [...realNodes].sort(),
        );
        const { items: pdbs } = await client.list<KubeObject & { spec?: { maxUnavailable?: number } }>(
          Kinds.PodDisruptionBudget,
          { namespace: RELEASE_NAMESPACE, labelSelector: `app.kubernetes.io/name=${label}` },
        );
        expect(
          pdbs.map((p) => p.spec?.maxUnavailable),
          `${label} PodDisruptionBudget`,
        ).toEqual([1]);
      }
      for (const operator of operators) {
        // One leader per operator: its Lease names one of the pods that run it.
        const mine = mode === 'combined' ? pods : (groups.find((g) => g.image === operator)?.pods ?? []);
        const lease = await waitFor<Lease>(
          client,
          Kinds.Lease,
          { namespace: RELEASE_NAMESPACE, name: `${operator}-operator-leader` },
          (l) => mine.some((p) => l?.spec?.holderIdentity?.startsWith(`${p.metadata.name}_`)),
          { timeoutMs: 60_000 },
        );
        expect(
          mine.filter((p) => lease?.spec?.holderIdentity?.startsWith(`${p.metadata.name}_`)).length,
        ).toBe(1);
      }
      // One pod after the other: each scrape binds and unbinds the same scraper ServiceAccount.
      const figures: Awaited<ReturnType<typeof measure>>[] = [];
      for (const pod of pods) figures.push(await measure(pod));
      if (mode === 'combined')
        // One process, its log lines tagged by operator.
        for (const f of figures)
          expect([...f.names].sort()).toEqual(
            ['stackops-operators', ...operators.map((o) => `${o}-operator`)].sort(),
          );
      const rss = figures.reduce((sum, f) => sum + f.rssMiB, 0) / 2;
      const ready = Math.max(...figures.map((f) => f.readyMs));
      process.stderr.write(
        `[umbrella] operators.mode ${mode}: idle RSS of one replica of every operator ${rss.toFixed(1)} MiB` +
          ` (pods: ${figures.map((f) => f.rssMiB.toFixed(1)).join(', ')}); start-up to caches synced ≤ ${ready} ms\n`,
      );

      await applyExample('00-openstack-prereqs.yaml', OPENSTACK_NAMESPACE);
      await applyExample('10-keystoneapi.yaml', OPENSTACK_NAMESPACE);
      await applyExample('30-networkaddonsconfig.yaml');
      await applyExample('40-sipcluster.yaml');
      for (const cr of samples) await waitForCondition(client, cr.kind, cr, cr.doneCondition, 'True');

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
  },
);
