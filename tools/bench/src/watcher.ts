#!/usr/bin/env node
import { createKubeClient, type KindRef } from '@stackops/lib-common/client';
import { Informer } from '@stackops/lib-common/runtime';
import { loadTestKubeConfig } from '@stackops/lib-common/testing';

/**
 * An operator's watches and nothing else: lib-common's informers for the cluster-wide watch-list
 * paths given (as the operator's run sent them), caching what they receive as the operator does,
 * with no controller behind them. Prints `synced` once every informer has its initial events, then
 * runs until SIGTERM. The floor run measures its CPU: what any operator that keeps these watches
 * spends before it reconciles anything.
 *
 * Usage: watcher <kubeconfig> <path>...
 */

/** The kind and selectors of a cluster-wide watch path (`/apis/<group>/<version>/<plural>?…`); undefined for a namespaced one. */
export function watchedKind(
  path: string,
): { kind: KindRef; labelSelector?: string; fieldSelector?: string } | undefined {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/([^/?]+)(?:\?(.*))?$/.exec(path);
  if (!m) return undefined;
  const [, coreVersion, group, version, plural = '', query = ''] = m;
  const params = new URLSearchParams(query);
  const labelSelector = params.get('labelSelector') ?? undefined;
  const fieldSelector = params.get('fieldSelector') ?? undefined;
  return {
    kind: {
      group: group ?? '',
      version: coreVersion ?? version ?? '',
      kind: plural,
      plural,
      namespaced: true,
    },
    ...(labelSelector ? { labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}

async function main(): Promise<void> {
  const [kubeconfig, ...paths] = process.argv.slice(2);
  if (!kubeconfig) throw new Error('usage: watcher <kubeconfig> <path>...');
  const client = createKubeClient(loadTestKubeConfig(kubeconfig), {
    fieldManager: 'stackops-bench-watcher',
    userAgent: 'stackops-bench/0.1.0',
  });
  const informers = paths.flatMap((p) => {
    const w = watchedKind(p);
    if (!w) return [];
    const { kind, ...selectors } = w;
    return [new Informer(client, kind, selectors)];
  });
  for (const i of informers) i.start();
  await Promise.all(informers.map((i) => i.waitForSync()));
  process.stdout.write(`synced ${informers.length}\n`);
  process.once('SIGTERM', () => {
    void Promise.all(informers.map((i) => i.stop())).finally(() => {
      client.close();
      process.exit(0);
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`watcher: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
