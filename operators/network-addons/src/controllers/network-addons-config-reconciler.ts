import { randomBytes } from 'node:crypto';
import {
  type ApiError,
  isNotFound,
  Kinds,
  type KubeObject,
  patchStatusIfChanged,
} from '@stackops/lib-common/resources';
import type { ReconcileContext, ReconcileResult } from '@stackops/lib-common/runtime';
import { OPERATOR_CONFIG_NAME } from '../api/constants.js';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../api/kinds.js';
import type { DeployedContainer, NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import type { OperatorEnv } from '../config/operator-env.js';
import { effectiveMacRange, type RandomBytes } from '../network/kubemacpool-range.js';
import {
  type FilledSpec,
  fillDefaults,
  invalidConfiguration,
  isChangeSafe,
  validate,
} from '../network/network.js';
import { selectTlsSettings } from '../network/tls-profile.js';
import { appliedConfigMap, appliedConfigName, readAppliedConfig } from '../render/applied-config.js';
import { kindOf } from '../render/kinds.js';
import { withOperatorLabels } from '../render/labels.js';
import { objectKey, type RenderedObject, renderComponents } from '../render/render.js';
import { type ConfigEvent, modifiedEvent } from '../status/events.js';
import { rolloutMessages } from '../status/rollout.js';
import { computeStatus, type Failure, ignoredStatus, type Outcome } from '../status/status.js';
import { renderContext } from '../templates/context.js';
import { applyRendered } from './apply.js';
import type { ManagedObjects } from './managed-objects.js';

export interface NetworkAddonsConfigReconcilerOptions {
  env: OperatorEnv;
  objects: ManagedObjects;
  /** cert-manager's API is served (the ipam controller then gets its Certificate and Issuer). */
  certManagerAvailable: boolean;
  random?: RandomBytes;
  now?: () => Date;
  /** Self-healing resync of a successful reconcile (upstream: one minute). */
  resyncMs?: number;
}

/** A failed step: what goes into Degraded, and whether retrying without a spec change can help. */
class StepFailure extends Error {
  constructor(
    readonly failure: Failure,
    readonly retry: boolean,
  ) {
    super(failure.message);
  }
}

const fail = (reason: string, message: string, retry = false): never => {
  throw new StepFailure({ reason, message }, retry);
};

const errorText = (err: unknown): string =>
  (err as ApiError).statusMessage ?? (err instanceof Error ? err.message : String(err));

/** `(apps/v1, Kind=DaemonSet) ns/name`, as upstream names an object in its messages. */
const describe = (obj: KubeObject): string =>
  `(${obj.apiVersion}, Kind=${obj.kind}) ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;

interface Applied {
  results: { object: KubeObject; applied: boolean }[];
  wrote: string[];
}

/**
 * Reconciles the singleton NetworkAddonsConfig in upstream's order: validate, fill defaults from
 * the previously applied spec, check the change is safe, render, apply (SSA), track the DaemonSets
 * and Deployments, remove what is no longer rendered, update the status.
 */
export class NetworkAddonsConfigReconciler {
  private readonly random: RandomBytes;
  private readonly now: () => Date;
  /** The status this process last wrote per CR uid, for when the cache has not caught up yet. */
  private readonly lastWritten = new Map<string, { from: string; status: NetworkAddonsConfigStatus }>();

  constructor(private readonly opts: NetworkAddonsConfigReconcilerOptions) {
    this.random = opts.random ?? ((n) => randomBytes(n));
    this.now = opts.now ?? (() => new Date());
  }

  reconcile = async (
    cr: NetworkAddonsConfig,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | undefined> => {
    if (cr.metadata.deletionTimestamp) return undefined; // Kubernetes GC removes what it owned.
    if (cr.metadata.name !== OPERATOR_CONFIG_NAME) {
      await this.reportIgnored(cr, ctx);
      return undefined;
    }
    await this.opts.objects.waitForSync(ctx.signal);
    const events: ConfigEvent[] = [];
    let outcome: Outcome;
    let retry = false;
    try {
      outcome = await this.deploy(cr, ctx, events);
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      outcome = { kind: 'failed', failure: err.failure };
      retry = err.retry;
      ctx.log.warn({ reason: err.failure.reason, err: err.message }, 'could not apply the configuration');
    }
    const update = computeStatus(this.statusBefore(cr), outcome, this.versions(cr), this.timestamp());
    await this.writeStatus(cr, update.status, ctx);
    for (const e of [...events, ...update.events]) await ctx.recorder.event(cr, e.type, e.reason, e.message);
    if (retry && outcome.kind === 'failed') throw new Error(outcome.failure.message);
    // An invalid spec waits for the next spec change; a deployed one is re-checked periodically.
    return outcome.kind === 'failed' ? undefined : { requeueAfter: this.opts.resyncMs ?? 60_000 };
  };

  /** Everything between reading the spec and knowing how the rollout goes. */
  private async deploy(
    cr: NetworkAddonsConfig,
    ctx: ReconcileContext,
    events: ConfigEvent[],
  ): Promise<Outcome> {
    const spec = cr.spec ?? {};
    const problems = validate(spec);
    if (problems.length)
      fail('FailedToValidate', `failed to validate NetworkConfig.Spec: ${invalidConfiguration(problems)}`);
    const filled = this.fillFromPrevious(cr);
    const rendered = this.render(cr, filled);
    const objects = rendered.map((r) => r.object);
    const applied = await this.applyAll(cr, rendered, ctx);
    const workloads = applied.results
      .map((r) => r.object)
      .filter((o) => o.kind === 'DaemonSet' || o.kind === 'Deployment');
    if (applied.wrote.some((k) => k.includes('/DaemonSet/') || k.includes('/Deployment/')))
      events.push(modifiedEvent);
    if (applied.wrote.includes(objectKey(objects[0]!))) events.push(...rangeAdjustment(filled));
    await this.pruneRemoved(cr, objects, ctx);
    return { kind: 'applied', progressing: rolloutMessages(workloads), containers: containersOf(workloads) };
  }

  /** Defaults from the previously applied spec (kept in a ConfigMap), then the safe-change check. */
  private fillFromPrevious(cr: NetworkAddonsConfig): FilledSpec {
    const { operatorNamespace } = this.opts.env;
    const cm = this.opts.objects.get(Kinds.ConfigMap, {
      metadata: { name: appliedConfigName(cr.metadata.name ?? ''), namespace: operatorNamespace },
    });
    let previous: FilledSpec | undefined;
    try {
      // Only a ConfigMap this very CR wrote counts: a recreated CR starts afresh, as upstream (GC).
      const ours = cm?.metadata.ownerReferences?.some((r) => r.uid === cr.metadata.uid);
      previous = ours ? readAppliedConfig(cm ?? undefined) : undefined;
    } catch (err) {
      fail(
        'FailedToGetPreviousConfigSpec',
        `failed to read the previously applied configuration: ${errorText(err)}`,
      );
    }
    const filled = fillDefaults(cr.spec ?? {}, previous, this.random);
    if (previous) {
      const unsafe = isChangeSafe(previous, filled);
      if (unsafe.length) {
        fail('FailedToGetPreviousConfigSpec', `not applying unsafe change: ${invalidConfiguration(unsafe)}`);
      }
    }
    return filled;
  }

  /** The applied-config ConfigMap first, then every component, labelled for this operator version. */
  private render(cr: NetworkAddonsConfig, filled: FilledSpec): RenderedObject[] {
    const { env } = this.opts;
    try {
      const ctx = renderContext(filled, {
        namespace: env.operandNamespace,
        images: env.images,
        certManagerAvailable: this.opts.certManagerAvailable,
        tls: selectTlsSettings(filled.tlsSecurityProfile),
      });
      const rendered: RenderedObject[] = [
        {
          component: 'operator',
          object: appliedConfigMap(cr.metadata.name ?? '', env.operatorNamespace, filled),
        },
        ...renderComponents(filled, ctx),
      ];
      return rendered.map((r) => ({
        ...r,
        object: withOperatorLabels(r.object, cr.metadata.labels ?? {}, env.operatorVersion),
      }));
    } catch (err) {
      return fail('FailedToRender', `failed to render ${errorText(err)}`, true);
    }
  }

  private async applyAll(
    cr: NetworkAddonsConfig,
    rendered: RenderedObject[],
    ctx: ReconcileContext,
  ): Promise<Applied> {
    const results: Applied['results'] = [];
    const wrote: string[] = [];
    for (const { component, object: obj } of rendered) {
      const kind = kindOf(obj);
      try {
        const result = await applyRendered(ctx.client, cr, kind, obj, this.opts.objects.get(kind, obj));
        results.push(result);
        if (result.applied) wrote.push(objectKey(obj));
      } catch (err) {
        fail('FailedToApply', `could not apply ${describe(obj)} (${component}): ${errorText(err)}`, true);
      }
    }
    if (wrote.length) ctx.log.info({ objects: wrote.length }, 'applied changed objects');
    return { results, wrote };
  }

  /** Deletes what this CR owns but no longer renders (a component removed from the spec, a renamed object). */
  private async pruneRemoved(
    cr: NetworkAddonsConfig,
    desired: KubeObject[],
    ctx: ReconcileContext,
  ): Promise<void> {
    const keep = new Set(desired.map(objectKey));
    const stale = this.opts.objects
      .ownedBy(cr.metadata.uid ?? '')
      .filter(({ object }) => !object.metadata.deletionTimestamp && !keep.has(objectKey(object)));
    for (const { kind, object } of stale) {
      try {
        await ctx.client.delete(kind, {
          name: object.metadata.name ?? '',
          namespace: object.metadata.namespace,
        });
        ctx.log.info({ object: describe(object) }, 'removed an object no longer rendered');
      } catch (err) {
        if (!isNotFound(err))
          fail('FailedToDeleteObjects', `could not delete ${describe(object)}: ${errorText(err)}`, true);
      }
    }
  }

  private async reportIgnored(cr: NetworkAddonsConfig, ctx: ReconcileContext): Promise<void> {
    const name = cr.metadata.name ?? '';
    const status = ignoredStatus(
      this.statusBefore(cr),
      name,
      OPERATOR_CONFIG_NAME,
      this.versions(cr),
      this.timestamp(),
    );
    await this.writeStatus(cr, status, ctx);
  }

  private statusBefore(cr: NetworkAddonsConfig): NetworkAddonsConfigStatus | undefined {
    const last = this.lastWritten.get(cr.metadata.uid ?? '');
    // The cache still shows the version our last status patch started from: our write is newer.
    if (last && last.from === cr.metadata.resourceVersion) return last.status;
    return cr.status;
  }

  private async writeStatus(
    cr: NetworkAddonsConfig,
    status: NetworkAddonsConfigStatus,
    ctx: ReconcileContext,
  ) {
    const current = { ...cr, status: this.statusBefore(cr) ?? {} };
    const { patched } = await patchStatusIfChanged(ctx.client, NetworkAddonsConfigKind, current, status);
    if (patched)
      this.lastWritten.set(cr.metadata.uid ?? '', { from: cr.metadata.resourceVersion ?? '', status });
  }

  private versions(cr: NetworkAddonsConfig) {
    return { operatorVersion: this.opts.env.operatorVersion, generation: cr.metadata.generation };
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  }
}

/** Init containers first, then containers, of every tracked DaemonSet and Deployment in render order. */
export function containersOf(workloads: KubeObject[]): DeployedContainer[] {
  return workloads.flatMap((w) => {
    const pod = (w['spec'] as { template?: { spec?: Record<string, { name: string; image: string }[]> } })
      .template?.spec;
    return [...(pod?.['initContainers'] ?? []), ...(pod?.['containers'] ?? [])].map((c) => ({
      parentKind: w.kind ?? '',
      parentName: w.metadata.name ?? '',
      name: c.name,
      image: c.image,
    }));
  });
}

/** The Event telling the user a multicast rangeEnd was lowered for KubeMacPool. */
function rangeAdjustment(filled: FilledSpec): ConfigEvent[] {
  const kmp = filled.kubeMacPool;
  if (!kmp?.rangeStart || !kmp.rangeEnd) return [];
  const range = effectiveMacRange({ rangeStart: kmp.rangeStart, rangeEnd: kmp.rangeEnd });
  if (!range.adjustedFrom) return [];
  return [
    {
      type: 'Normal',
      reason: 'KubeMacPoolRangeEndAdjusted',
      message: `rangeEnd ${range.adjustedFrom} is a multicast address; KubeMacPool allocates up to ${range.rangeEnd}, the last unicast address below it`,
    },
  ];
}
