import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopCluster } from '@stackops/kube-env';
import { installCrds, loadTestKubeConfig } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjectFilter } from '../src/audit.js';
import { sample } from '../src/proc.js';
import { createNamespace, freshCluster, settle, startWatcher, until } from '../src/runner.js';
import { type RunningSubject, startSubject } from '../src/subject.js';
import { watchListsAnswered, watchListsOf } from '../src/watch-list-floor.js';
import { watchedKind } from '../src/watcher.js';
import { operatorDirs, workloads } from '../src/workloads.js';

/**
 * Behaviour, not a benchmark: an operator restarted while nothing changed finds everything as it
 * left it and writes nothing. Each operator runs as its own process (dist/main.js) on a private
 * control plane whose API server keeps an audit log, which is what the writes are counted from.
 */
const cluster = `bench-restart-${process.pid}`;
const outDir = mkdtempSync(join(tmpdir(), 'bench-restart-'));
let env: Awaited<ReturnType<typeof freshCluster>>;

beforeAll(async () => {
  env = await freshCluster(cluster, outDir, () => {});
});
afterAll(async () => {
  env?.client.close();
  await stopCluster(cluster, { purge: true });
  rmSync(outDir, { recursive: true, force: true });
});

// The combined process runs these same four workloads, whose cluster-wide singletons (the
// NetworkAddonsConfig) this one cluster already holds: `make bench` restarts it on a fresh cluster.
describe.each(operatorDirs.filter((d) => d !== 'combined'))(
  '%s-operator restarted with nothing changed',
  (dir) => {
    it('makes no write', async () => {
      const { client, audit, kubeconfig } = env;
      const w = workloads[dir];
      const spec = w.subject('dist');
      const filter = subjectFilter(spec.userAgent);
      const logFile = join(outDir, `${dir}.log`);
      await installCrds(client, w.crds());
      await w.setup?.(client);
      const ns = await createNamespace(client, `restart-${dir}`);
      await w.prepare(client, ns);
      let subject: RunningSubject = await startSubject(spec, { kubeconfig, logFile });
      try {
        await w.apply(client, ns);
        await until(`${dir}: the instance done`, () => w.done(client, ns), 120_000, 100);
        // Its last status writes and Events land before the restart.
        await settle(audit, filter, 3000, 60_000);
        await subject.stop();
        // The stopped process's watches reach the audit log a few ms after it exits: not the restart's.
        await settle(audit, filter, 500, 10_000);

        const mark = audit.mark();
        subject = await startSubject(spec, { kubeconfig, logFile });
        await sleep(5000);
        await settle(audit, filter, 2000, 30_000);
        const restart = audit.tally(filter, mark);
        // The audit log saw the restarted operator read its kinds (so an empty tally cannot pass).
        expect([...restart.byKey.keys()].some((k) => k.startsWith('watch '))).toBe(true);
        expect(restart.describeWrites(), `writes after the restart (log: ${logFile})`).toBe('');
      } finally {
        await subject.stop();
      }
    });
  },
);

describe('the watch-list floor under spawn → ready', () => {
  it("sends an operator's start-up watch-lists again on a new connection and times them to their initial events", async () => {
    const { client, audit, kubeconfig } = env;
    const w = workloads.placement;
    const spec = w.subject('dist');
    const filter = subjectFilter(spec.userAgent);
    await installCrds(client, w.crds());
    await settle(audit, filter, 500, 10_000);
    const mark = audit.mark();
    const subject = await startSubject(spec, { kubeconfig, logFile: join(outDir, 'floor.log') });
    try {
      await settle(audit, filter, 1000, 20_000);
      const paths = watchListsOf(audit.read(mark), filter);
      expect(paths.length).toBeGreaterThan(3);
      expect(paths.some((p) => p.startsWith('/apis/placement.openstack.org/v1beta1/placementapis?'))).toBe(
        true,
      );
      const kc = loadTestKubeConfig(kubeconfig);
      const seconds = await watchListsAnswered(kc, paths);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(5);
      // A request the API server refuses fails the figure instead of timing nothing.
      await expect(
        watchListsAnswered(kc, ['/apis/nothing.example.org/v1/things?watch=true&sendInitialEvents=true']),
      ).rejects.toThrow(/HTTP 404/);

      // The floor run's watches: the same paths held by informers alone, in a process of their own.
      const clusterWide = paths.filter((p) => watchedKind(p));
      expect(clusterWide.length).toBeGreaterThan(3);
      const watcher = await startWatcher(kubeconfig, paths, []);
      try {
        expect(watcher.informers).toBe(clusterWide.length);
        expect(sample(watcher.pid).cpu).toBeGreaterThan(0);
      } finally {
        await watcher.stop();
      }
      expect(() => process.kill(watcher.pid, 0)).toThrow();
    } finally {
      await subject.stop();
    }
  });
});
