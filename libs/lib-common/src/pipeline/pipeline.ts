import type { Logger } from 'pino';
import { isConflict, isNamespaceTerminating, isNotFound } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import {
  type ConditionInput,
  Conditions,
  ConditionType,
  falseCondition,
  formatTime,
  hasSameState,
  normalizeCondition,
  parseCondition,
  Reason,
  Severity,
} from '../conditions/index.js';
import { type RecordedWrite, recordingClient } from '../objects/recording-client.js';
import { patchStatusIfChanged } from '../objects/status.js';
import type { CacheReader } from '../runtime/cache.js';
import type { ReconcileContext, ReconcileResult, Reconciler } from '../runtime/controller.js';
import { CRD_SCHEMA_CONDITION, CRD_SCHEMA_REASON } from '../runtime/crd-schema.js';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../runtime/finalizer.js';
import type { EventType } from '../runtime/recorder.js';
import { type FailedStep, markStepFailed } from './failures.js';
import {
  namespaceHolder,
  ONE_PER_NAMESPACE_RECHECK_MS,
  onePerNamespaceMessage,
} from './one-per-namespace.js';
import {
  hasPausedCondition,
  isPaused,
  PAUSED_ANNOTATION,
  PAUSED_CONDITION,
  PAUSED_MESSAGE,
  pausedStatus,
  RESUMED_REASON,
  withoutPausedCondition,
} from './paused.js';
import { runSteps, type Step } from './step.js';

/** The status of an object as this library reads it: anything, with optional conditions. */
export type StatusOf<T> = T extends { status?: infer S } ? (S extends object ? S : object) : object;

/**
 * What every step of a pass sees. An operator's context extends it (`interface KeystonePass extends
 * Pass<KeystoneAPI> { spec: ResolvedSpec; … }`) through the pipeline's `context` hook.
 */
export interface Pass<T extends KubeObject, S extends object = StatusOf<T>> {
  /** The object, as read from the cache (after the finalizer was added: as patched). */
  cr: T;
  readonly client: KubeClient;
  readonly cache: CacheReader;
  /** Every line carries the controller, kind and object key. */
  readonly log: Logger;
  /** Aborts when the controller stops (shutdown deadline, leadership lost). */
  readonly signal: AbortSignal;
  /** This pass's conditions (see `conditions` of the pipeline). */
  readonly conditions: Conditions;
  /** The status this pass builds: written once, at the end, only if it changed. */
  readonly status: S;
  /** The status before this pass (the one this process last wrote, when the cache is behind it). */
  readonly previousStatus: S | undefined;
  /** Records an Event on the object; sent after the status write. Never put a Secret value in it. */
  event(type: EventType, reason: string, message: string): void;
  /** Run again within `ms` even when every step goes on (e.g. a timed rotation); the earliest wins. */
  requeueAfter(ms: number): void;
  /** The pipeline's clock. */
  now(): Date;
}

type StepsOf<C> = readonly Step<C>[] | ((ctx: C) => readonly Step<C>[]);

export interface PipelineDefinition<T extends KubeObject, S extends object, C extends Pass<T, S>> {
  /** The primary kind, whose `/status` the pipeline patches. */
  kind: KindRef;
  /**
   * The condition types a pass starts from: Ready Unknown "Setup started" and each type
   * Unknown/Init; at the end Ready is computed from the others. Omitted: the pass starts from the
   * previous conditions and the steps set them (Ready included) themselves.
   */
  conditions?: readonly (string | ConditionInput)[] | ((cr: T) => readonly (string | ConditionInput)[]);
  /** The status a pass starts from; default the previous one without conditions, `observedGeneration` set. */
  initialStatus?: (cr: T, previous: S | undefined) => S;
  /** Adds the operator's own fields (resolved spec, defaults, …) to the pass. Default: the pass itself. */
  context?: (pass: Pass<T, S>) => C | Promise<C>;
  /** The steps of a live object, in order. */
  steps: StepsOf<C>;
  /**
   * A finalizer the object carries while it lives (added before the first step, as kube-runtime's
   * `finalizer()`); on deletion the `cleanup` steps run and, when none stopped, it is removed.
   * Without a finalizer a deleted object is left to garbage collection and nothing runs.
   */
  finalizer?: { name: string; cleanup?: StepsOf<C> };
  /** Whether a deleting pass writes its status too (default false: nothing to report on an object going away). */
  statusWhileDeleting?: boolean;
  /**
   * Records a step's error in the pass before the status write. Default (`markStepFailed`): the
   * condition the step turned False itself, else the one it declares with `reports`, else Ready,
   * turns False, reason Error, with the severity and the short message of lib-common's failure table
   * (`failureMessage`), and a Warning Event says the same. Lost races (a conflict, a failed JSON
   * Patch `test`) are not failures: logged at debug, retried soon.
   */
  failed?: (ctx: C, err: unknown) => void;
  /**
   * At most one object of this kind per namespace (for kinds that create objects with fixed names):
   * the oldest holds the namespace; any other is refused before its finalizer and its steps, with a
   * False condition (severity Error) and one Event, and makes no other write. It looks again every
   * 30 s whether the holder is gone.
   */
  onePerNamespace?: boolean;
  /**
   * What the steps create, update and delete through `ctx.client` (not the status): `'events'`
   * (default) logs one info line per write (the step, the object) and records a Normal Event
   * (`SuccessfulCreate`/`SuccessfulUpdate`/`SuccessfulDelete`); `'logs'` only logs; `false` neither.
   */
  recordWrites?: 'events' | 'logs' | false;
  /**
   * With `recordWrites: 'events'`, only writes of these kinds (e.g. `['Job', 'Deployment']`: the
   * workloads a user follows) record an Event; the others are logged only. Default: every kind.
   * Events cost a request each, and a first apply creates a dozen objects.
   */
  eventKinds?: readonly string[];
  /**
   * The status to write; default the pass's status with its conditions (Ready computed when
   * `conditions` is given; unchanged transition times restored).
   */
  finish?: (ctx: C) => S;
  /**
   * Events on flips of this condition type (default `Ready`): Normal `<type>` when it became True,
   * Warning `Not<type>` when it was True and no longer is. `false`: none.
   */
  readyEvents?: string | false;
  now?: () => Date;
}

/** How soon a pass that lost a race (a conflict) runs again; the watch event of the winner usually comes first. */
const CONFLICT_RETRY_MS = 1_000;

/** A write refused by a namespace being deleted; its object's own deletion follows. */
const ignorable = (err: unknown): boolean => isNotFound(err) || isNamespaceTerminating(err);

const conditionsOf = (status: unknown) => (status as { conditions?: unknown } | undefined)?.conditions;

const stepsOf = <C>(s: StepsOf<C> | undefined, ctx: C): readonly Step<C>[] =>
  s === undefined ? [] : typeof s === 'function' ? s(ctx) : s;

function defaultInitialStatus<T extends KubeObject, S extends object>(cr: T, previous: S | undefined): S {
  const { conditions: _c, ...rest } = (previous ?? {}) as S & { conditions?: unknown };
  return {
    ...rest,
    ...(cr.metadata.generation !== undefined ? { observedGeneration: cr.metadata.generation } : {}),
  } as S;
}

/** Ready (or the given type) as `status.conditions` has it. */
function conditionOf(status: unknown, type: string) {
  const list = conditionsOf(status);
  if (!Array.isArray(list)) return undefined;
  return list.map(parseCondition).find((c) => c?.type === type);
}

/**
 * Sends a pass's Events (recorded in order, sent at once) without holding the worker: each is a
 * round-trip that changes nothing a pass reads, and Events are best effort.
 */
function sendEvents(
  rc: ReconcileContext,
  obj: KubeObject,
  events: readonly { type: EventType; reason: string; message: string }[],
): void {
  for (const e of events)
    rc.recorder
      .event(obj, e.type, e.reason, e.message)
      .catch((err: unknown) =>
        rc.log.warn(
          { err: err instanceof Error ? err.message : String(err), reason: e.reason },
          'event not recorded',
        ),
      );
}

/**
 * Turns a definition into the controller's reconciler. Every pass: conditions initialised → the
 * finalizer ensured → the steps, until one stops → Ready computed, unchanged transition times
 * restored → status patched only if it changed (NotFound and a terminating namespace tolerated) →
 * Events sent, not awaited (queued ones, then Ready flips). The status is written also when a step threw; the error
 * then goes to the controller's error policy. A write refused because the namespace is being
 * deleted ends the pass quietly.
 */
export function pipeline<
  T extends KubeObject,
  S extends object = StatusOf<T>,
  C extends Pass<T, S> = Pass<T, S>,
>(def: PipelineDefinition<T, S, C>): Reconciler<T> {
  const now = def.now ?? (() => new Date());
  const readyType = def.readyEvents === undefined ? ConditionType.Ready : def.readyEvents;
  const eventKinds = def.eventKinds ? new Set(def.eventKinds) : undefined;
  /** Per object uid: the status this process last wrote and the resourceVersion it was written over. */
  const lastWritten = new Map<string, { from: string; status: S }>();

  /**
   * A paused object (see `paused.ts`): no finalizer, no step, no cleanup (a deletion waits for
   * the annotation to go), no requeue; its one write is the Paused condition added to the status
   * it had, once, with one Event. Passes that find it there write nothing.
   */
  const pausedPass = async (
    obj: T,
    stored: S | undefined,
    rc: ReconcileContext,
  ): Promise<ReconcileResult> => {
    const status = pausedStatus(stored, now());
    try {
      const { patched } = await patchStatusIfChanged(
        rc.client,
        def.kind,
        { ...obj, status: stored ?? {} },
        status,
      );
      if (!patched) return {};
    } catch (err) {
      if (ignorable(err)) return {};
      throw err;
    }
    lastWritten.set(obj.metadata.uid ?? '', { from: obj.metadata.resourceVersion ?? '', status });
    rc.log.info(`the ${PAUSED_ANNOTATION} annotation set: reconciling paused`);
    sendEvents(rc, obj, [{ type: 'Normal', reason: PAUSED_CONDITION, message: PAUSED_MESSAGE }]);
    return {};
  };

  const previousOf = (cr: T): S | undefined => {
    const last = lastWritten.get(cr.metadata.uid ?? '');
    // The cache still shows the version our last status patch started from: our write is newer.
    if (last && last.from === cr.metadata.resourceVersion) return last.status;
    return (cr as { status?: S }).status;
  };

  return async (obj: T, rc: ReconcileContext): Promise<ReconcileResult> => {
    // The status as stored (what a write is compared with) and as the steps see it (never Paused).
    const storedStatus = previousOf(obj);
    const previousStatus = withoutPausedCondition(storedStatus);
    const deleting = obj.metadata.deletionTimestamp !== undefined;
    const finalizer = def.finalizer;
    if (deleting && (!finalizer || !hasFinalizer(obj, finalizer.name))) {
      lastWritten.delete(obj.metadata.uid ?? '');
      return {};
    }
    if (isPaused(obj)) return pausedPass(obj, storedStatus, rc);
    const resumed = hasPausedCondition(storedStatus);
    const init = typeof def.conditions === 'function' ? def.conditions(obj) : def.conditions;
    const conditions = init
      ? new Conditions([], { now }).init(init)
      : // The CRD-schema condition is added at the end (withCrdSchemaCondition), never seen by the steps.
        Conditions.from(conditionsOf(previousStatus), { now }).remove(CRD_SCHEMA_CONDITION);
    const events: { type: EventType; reason: string; message: string }[] = [];
    let wakeAfterMs: number | undefined;
    let currentStep = '';
    const recordWrites = def.recordWrites ?? 'events';
    const onWrite = (w: RecordedWrite): void => {
      const name = w.ref.name;
      const object = `${w.kind.kind} ${w.ref.namespace ? `${w.ref.namespace}/` : ''}${name}`;
      rc.log.info({ step: currentStep, object, action: w.action }, `${w.action} ${w.kind.kind} ${name}`);
      if (recordWrites !== 'events' || (eventKinds && !eventKinds.has(w.kind.kind))) return;
      const verb = w.action === 'created' ? 'Create' : w.action === 'updated' ? 'Update' : 'Delete';
      events.push({
        type: 'Normal',
        reason: `Successful${verb}`,
        message: `${verb}d ${w.kind.kind} ${name}`,
      });
    };
    const exists = (kind: KindRef, ref: { name: string; namespace?: string }): boolean | undefined => {
      try {
        return rc.cache.get(kind, ref) !== undefined;
      } catch {
        return undefined; // the kind is not cached
      }
    };
    const pass: Pass<T, S> = {
      cr: obj,
      client: recordingClient(rc.client, recordWrites === false ? () => undefined : onWrite, exists),
      cache: rc.cache,
      log: rc.log,
      signal: rc.signal,
      conditions,
      status: (def.initialStatus ?? defaultInitialStatus)(obj, previousStatus),
      previousStatus,
      event: (type, reason, message) => {
        events.push({ type, reason, message });
      },
      requeueAfter: (ms) => {
        wakeAfterMs = wakeAfterMs === undefined ? ms : Math.min(wakeAfterMs, ms);
      },
      now,
    };
    const ctx = def.context ? await def.context(pass) : (pass as C);
    if (resumed) {
      rc.log.info(`the ${PAUSED_ANNOTATION} annotation removed: reconciling again`);
      ctx.event('Normal', RESUMED_REASON, 'The paused annotation was removed: reconciling again');
    }
    // Before the first step (the finalizer's patch): a failure there is Ready's.
    let failedStep: FailedStep = { name: '', before: ctx.conditions.list() };

    let failure: { err: unknown } | undefined;
    let failedOnReady = false;
    let requeueAfterMs: number | undefined;
    const holder = def.onePerNamespace && !deleting ? namespaceHolder(rc.cache, def.kind, obj) : undefined;
    if (holder) {
      // Refused before the finalizer and every step: its only write is its status (once).
      refuseDuplicate(ctx, holder);
      await writeStatus(ctx);
      sendEvents(rc, ctx.cr, events);
      return { requeueAfterMs: ONE_PER_NAMESPACE_RECHECK_MS };
    }
    const onStep = (name: string, step: Step<C>): void => {
      currentStep = name;
      failedStep = {
        name,
        ...(step.reports ? { reports: step.reports } : {}),
        before: ctx.conditions.list(),
      };
    };
    try {
      if (deleting) {
        const outcome = await runSteps(stepsOf(finalizer?.cleanup, ctx), ctx, { signal: rc.signal, onStep });
        requeueAfterMs = outcome.requeueAfterMs;
        if (!outcome.stoppedAt && finalizer) {
          await removeFinalizer(rc.client, def.kind, ctx.cr, finalizer.name).catch((err: unknown) => {
            // Already gone: an earlier pass removed it and the cache had not caught up.
            if (!isNotFound(err)) throw err;
          });
          lastWritten.delete(obj.metadata.uid ?? '');
        }
      } else {
        if (finalizer && !hasFinalizer(ctx.cr, finalizer.name)) {
          ctx.cr = await ensureFinalizer(rc.client, def.kind, ctx.cr, finalizer.name);
        }
        const outcome = await runSteps(stepsOf(def.steps, ctx), ctx, { signal: rc.signal, onStep });
        requeueAfterMs = outcome.requeueAfterMs;
        if (outcome.stoppedAt) rc.log.debug({ step: outcome.stoppedAt, requeueAfterMs }, 'pass ended early');
      }
    } catch (err) {
      if (isNamespaceTerminating(err)) {
        rc.log.debug('namespace terminating; pass ended');
      } else if (isConflict(err)) {
        // A lost race (stale cache, a failed JSON Patch `test`): the next pass, from the newer cache, resolves it.
        rc.log.debug(
          { step: currentStep, err: err instanceof Error ? err.message : String(err) },
          'conflict; retrying',
        );
        requeueAfterMs = CONFLICT_RETRY_MS;
      } else {
        failure = { err };
        if (def.failed) def.failed(ctx, err);
        else failedOnReady = markStepFailed(ctx, failedStep, err, init !== undefined) === ConditionType.Ready;
      }
    }

    if (!deleting || def.statusWhileDeleting) {
      try {
        await writeStatus(ctx);
      } catch (err) {
        if (!failure) throw err;
        // The step's error is the one the error policy must see; the status is retried with it.
        rc.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'status write failed');
      }
    }
    sendEvents(rc, ctx.cr, events);
    if (failure) throw failure.err;
    const wake = [requeueAfterMs, wakeAfterMs].filter((v): v is number => v !== undefined && v > 0);
    return wake.length > 0 ? { requeueAfterMs: Math.min(...wake) } : {};

    /** Ready (through the first condition, when there are several) False: another object holds the namespace. */
    function refuseDuplicate(c: C, other: T): void {
      const message = onePerNamespaceMessage(def.kind.kind, other);
      const first = (init ?? [])
        .map((e) => (typeof e === 'string' ? e : e.type))
        .find((t) => t !== ConditionType.Ready);
      c.conditions.markFalse(first ?? ConditionType.Ready, Reason.Error, Severity.Error, message);
      if (!init || !first) c.conditions.markFalse(ConditionType.Ready, Reason.Error, Severity.Error, message);
      const before = Conditions.from(conditionsOf(previousStatus)).get(first ?? ConditionType.Ready);
      if (before?.message !== c.conditions.get(first ?? ConditionType.Ready)?.message) {
        c.event('Warning', 'DuplicateInNamespace', message);
        rc.log.info(
          { holder: other.metadata.name },
          'refused: another object of this kind holds the namespace',
        );
      }
    }

    /**
     * The CRD-schema condition (ADR 0037) after everything else, so it never takes part in Ready:
     * False/Warning while the installed CRD is not ours, absent otherwise; a Warning Event when its
     * message is new.
     */
    function withCrdSchemaCondition(status: S): S {
      const list = conditionsOf(status);
      const others = Array.isArray(list)
        ? (list as { type?: unknown }[]).filter((x) => x?.type !== CRD_SCHEMA_CONDITION)
        : [];
      const mismatch = rc.crdSchemaMismatch;
      if (!mismatch)
        return Array.isArray(list) && others.length !== list.length
          ? { ...status, conditions: others }
          : status;
      const input = falseCondition(CRD_SCHEMA_CONDITION, CRD_SCHEMA_REASON, Severity.Warning, mismatch);
      const before = conditionOf(previousStatus, CRD_SCHEMA_CONDITION);
      const kept = before && hasSameState(before, input);
      if (!kept) events.push({ type: 'Warning', reason: CRD_SCHEMA_REASON, message: mismatch });
      const condition = normalizeCondition(input, kept ? before.lastTransitionTime : formatTime(now()));
      return { ...status, conditions: [...others, condition] };
    }

    async function writeStatus(c: C): Promise<void> {
      let status: S;
      if (def.finish) status = def.finish(c);
      else {
        // A failure no other condition tells is Ready's own: computing Ready would drop it.
        if (init && !failedOnReady) c.conditions.computeReady();
        c.conditions.restoreLastTransitionTimes(Conditions.from(conditionsOf(previousStatus)).list());
        status = { ...c.status, conditions: c.conditions.toJSON() };
      }
      status = withCrdSchemaCondition(status);
      const current = { ...c.cr, status: storedStatus ?? {} };
      let patched: boolean;
      try {
        ({ patched } = await patchStatusIfChanged(rc.client, def.kind, current, status));
      } catch (err) {
        if (ignorable(err)) return;
        throw err;
      }
      if (!patched) return;
      lastWritten.set(c.cr.metadata.uid ?? '', { from: c.cr.metadata.resourceVersion ?? '', status });
      if (readyType === false) return;
      const before = conditionOf(previousStatus, readyType);
      const after = conditionOf(status, readyType);
      if (!after || before?.status === after.status) return;
      if (after.status === 'True')
        events.push({ type: 'Normal', reason: readyType, message: after.message ?? '' });
      else if (before?.status === 'True')
        events.push({ type: 'Warning', reason: `Not${readyType}`, message: after.message ?? '' });
    }
  };
}
