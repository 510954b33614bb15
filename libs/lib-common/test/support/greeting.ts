import { type KindRef, Kinds } from '../../src/client/kinds.js';
import type { KubeObject } from '../../src/client/types.js';
import { Conditions, ConditionType, Severity } from '../../src/conditions/index.js';
import { applyOwned } from '../../src/objects/apply.js';
import { stableHash } from '../../src/objects/hash.js';
import { patchStatusIfChanged } from '../../src/objects/status.js';
import { type Controller, type ReconcileContext, TerminalError } from '../../src/runtime/controller.js';
import type { Manager } from '../../src/runtime/manager.js';

/** The example kind of the integration tests (test/fixtures/crds/greetings.yaml). */
export const GreetingKind: KindRef = {
  group: 'example.stackops.dev',
  version: 'v1alpha1',
  kind: 'Greeting',
  plural: 'greetings',
  namespaced: true,
};

export interface Greeting extends KubeObject {
  spec: { message: string; secretName?: string; failCleanup?: boolean };
  status?: { observedGeneration?: number; configMap?: string; inputHash?: string; conditions?: unknown[] };
}

/** A Greeting to create in `namespace` (the message defaults to the name). */
export const greeting = (
  namespace: string,
  name: string,
  spec: Greeting['spec'] = { message: name },
  metadata: Partial<Greeting['metadata']> = {},
): Greeting => ({
  apiVersion: 'example.stackops.dev/v1alpha1',
  kind: 'Greeting',
  metadata: { ...metadata, name, namespace },
  spec,
});

type SecretObject = KubeObject & { data?: Record<string, string> };

export const configMapName = (g: Greeting): string => `${g.metadata.name}-greeting`;

/**
 * The example reconciler: renders a ConfigMap from the spec and (the hash of) a referenced Secret,
 * owns it, and reports Ready. Everything is read from the cache and written only when different,
 * so a reconcile with unchanged inputs sends no request at all.
 */
async function reconcileGreeting(g: Greeting, ctx: ReconcileContext): Promise<void> {
  const ns = g.metadata.namespace ?? '';
  const saved = Conditions.from(g.status?.conditions).list();
  const conds = new Conditions().init([ConditionType.InputReady, ConditionType.ServiceConfigReady]);
  if (g.spec.message.includes('{{')) {
    throw new TerminalError('spec.message must not contain template markers', { reason: 'InvalidMessage' });
  }
  let secretHash = '';
  if (g.spec.secretName) {
    const secret = ctx.cache.get<SecretObject>(Kinds.Secret, { namespace: ns, name: g.spec.secretName });
    if (!secret) {
      conds.markFalse(
        ConditionType.InputReady,
        'SecretMissing',
        Severity.Warning,
        'waiting for Secret %s',
        g.spec.secretName,
      );
      await writeStatus(ctx, g, conds.computeReady().restoreLastTransitionTimes(saved), '');
      return;
    }
    secretHash = stableHash(secret.data ?? {});
  }
  conds.markTrue(ConditionType.InputReady);
  const inputHash = stableHash({ message: g.spec.message, secret: secretHash });
  const current = ctx.cache.get<KubeObject>(Kinds.ConfigMap, { namespace: ns, name: configMapName(g) });
  const { applied } = await applyOwned(
    ctx.client,
    g,
    Kinds.ConfigMap,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: configMapName(g),
        namespace: ns,
        labels: { 'example.stackops.dev/greeting': g.metadata.name ?? '' },
      },
      data: { message: g.spec.message, inputHash },
    },
    { current: current ?? null },
  );
  if (applied) ctx.log.info({ configMap: configMapName(g) }, 'ConfigMap applied');
  conds.markTrue(ConditionType.ServiceConfigReady);
  await writeStatus(ctx, g, conds.computeReady().restoreLastTransitionTimes(saved), inputHash);
}

async function writeStatus(
  ctx: ReconcileContext,
  g: Greeting,
  conds: Conditions,
  inputHash: string,
): Promise<void> {
  await patchStatusIfChanged(ctx.client, GreetingKind, g, {
    ...g.status,
    observedGeneration: g.metadata.generation,
    configMap: configMapName(g),
    inputHash,
    conditions: conds.toJSON(),
  });
}

/** Registers the example controller: for Greeting, owns ConfigMap, woken by the Secret it names. */
export function addGreetingController(
  manager: Manager,
  opts: {
    concurrency?: number;
    onReconcile?: (key: string) => void;
    /** Called after each reconcile with its start and end times (ms since epoch). */
    onReconciled?: (key: string, start: number, end: number) => void;
  } = {},
): Controller<Greeting> {
  return manager
    .controller<Greeting>({ for: GreetingKind, name: 'greeting', concurrency: opts.concurrency ?? 2 })
    .owns(Kinds.ConfigMap)
    .referencedBy(Kinds.Secret, (g) => [g.spec.secretName])
    .reconcile(async (g, ctx) => {
      const start = Date.now();
      opts.onReconcile?.(ctx.key);
      try {
        await reconcileGreeting(g, ctx);
      } finally {
        opts.onReconciled?.(ctx.key, start, Date.now());
      }
    });
}
