import type { KubeClient, KubeObject, ObjectRef } from '../client/types.js';

export interface WriteCount {
  /** Writes sent into the namespace since the count started. */
  count(): number;
  /** Puts the client's own methods back. */
  stop(): void;
}

type Write = 'create' | 'replace' | 'apply' | 'patch' | 'delete';
const BY_OBJECT: readonly Write[] = ['create', 'replace', 'apply'];
const BY_REF: readonly Write[] = ['patch', 'delete'];

/**
 * Counts the writes (create, replace, apply, patch, delete) `client` sends into `namespace` (`undefined`:
 * to cluster-scoped objects) until stopped. Tests that share one cluster with other test files count with it rather than with the
 * client's total: a file that ran before may leave namespaces finalising, and the operator's
 * writes there are not the ones the test is about.
 */
export function countWritesIn(client: KubeClient, namespace: string | undefined): WriteCount {
  let writes = 0;
  const target = client as unknown as Record<Write, (...args: unknown[]) => Promise<unknown>>;
  const originals = new Map<Write, (...args: unknown[]) => Promise<unknown>>();
  const wrap = (method: Write, nsOf: (arg: unknown) => string | undefined) => {
    const original = target[method];
    originals.set(method, original);
    target[method] = (...args: unknown[]) => {
      if (nsOf(args[1]) === namespace) writes += 1;
      return original.apply(client, args);
    };
  };
  for (const m of BY_OBJECT) wrap(m, (obj) => (obj as KubeObject | undefined)?.metadata?.namespace);
  for (const m of BY_REF) wrap(m, (ref) => (ref as ObjectRef | undefined)?.namespace);
  return {
    count: () => writes,
    stop: () => {
      for (const [method, original] of originals) target[method] = original;
    },
  };
}

/** The writes `client` sends into `namespace` over the next `windowMs` (see countWritesIn). */
export async function writesOver(client: KubeClient, namespace: string, windowMs: number): Promise<number> {
  const writes = countWritesIn(client, namespace);
  await new Promise((r) => setTimeout(r, windowMs));
  writes.stop();
  return writes.count();
}
