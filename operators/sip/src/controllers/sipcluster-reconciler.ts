import { isNotFound, isTransient } from '@stackops/lib-common/resources';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '@stackops/lib-common/runtime';
import { LABEL_NODE_TYPE, ReadyReason, SIP_FINALIZER } from '../api/constants.js';
import { type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import type { ServiceImages } from '../config/images.js';
import { type StepContext, StepFailure } from './context.js';
import { readyFalse, readyTrue, writeStatus } from './status.js';
import { deployServices } from './steps/deploy-services.js';
import { gatherHosts } from './steps/gather-hosts.js';
import { labelHosts } from './steps/label-hosts.js';
import { releaseAllHosts } from './steps/release-hosts.js';

export interface SIPClusterReconcilerOptions {
  images: ServiceImages;
  /** Retry delay after invalid input (also retried whenever a watched input changes). */
  invalidInputRetryMs?: number;
  /** Retry delay while waiting for something that may resolve by itself (free hosts). */
  waitingRetryMs?: number;
}

export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

const describeRoles = (roles: { role: string; hosts: unknown[] }[]) =>
  roles.map((r) => `${r.hosts.length} ${r.role}`).join(', ') || 'no';

/**
 * Reconciles one SIPCluster, as the SIP design describes: gather (schedule the hosts and read
 * their data), deploy the service infrastructure, then label the hosts; on deletion, unlabel them
 * (the services go with their owner). Every step is idempotent and safe to repeat after a crash:
 * hosts the cluster holds count first, objects are applied only when they differ, and labels are
 * written last, guarded by the resourceVersion the decision was made on.
 */
export class SIPClusterReconciler {
  readonly #images: ServiceImages;
  readonly #invalidRetry: number;
  readonly #waitingRetry: number;

  constructor(opts: SIPClusterReconcilerOptions) {
    this.#images = opts.images;
    this.#invalidRetry = opts.invalidInputRetryMs ?? 5 * 60_000;
    this.#waitingRetry = opts.waitingRetryMs ?? 30_000;
  }

  async reconcile(ctx: StepContext, sip: SIPCluster): Promise<ReconcileOutcome> {
    if (sip.metadata.deletionTimestamp) return this.#finalize(ctx, sip);
    const live = await ensureFinalizer(ctx.client, SIPClusterKind, sip, SIP_FINALIZER);
    try {
      const gathered = gatherHosts(ctx, live);
      const deployed = await deployServices(ctx, live, gathered, this.#images);
      const changes = await labelHosts(ctx, live, gathered);
      for (const c of changes) {
        const host = `${c.host.namespace}/${c.host.name}`;
        if (c.set)
          await ctx.recorder.normal(
            live,
            'HostScheduled',
            `BareMetalHost ${host} labelled as ${c.set[LABEL_NODE_TYPE]}`,
          );
        else await ctx.recorder.normal(live, 'HostReleased', `BareMetalHost ${host} released`);
      }
      const services = deployed.instances.length > 0 ? `; services ${deployed.instances.join(', ')}` : '';
      const { changed } = await writeStatus(
        ctx,
        live,
        readyTrue(`${describeRoles(gathered.roles)} hosts scheduled${services}`),
      );
      if (changed)
        await ctx.recorder.normal(live, ReadyReason.ReconciliationSucceeded, 'SIPCluster is ready');
      return {};
    } catch (e) {
      return this.#fail(ctx, live, e);
    }
  }

  /** Records a failed step in status (and as an Event when Ready changes), then retries or rethrows. */
  async #fail(ctx: StepContext, sip: SIPCluster, e: unknown): Promise<ReconcileOutcome> {
    if (!(e instanceof StepFailure)) throw e;
    const { changed } = await writeStatus(ctx, sip, readyFalse(e));
    if (changed) await ctx.recorder.warning(sip, e.event, e.message);
    ctx.log.info({ reason: e.reason, severity: e.severity }, e.message);
    // Transient API trouble goes back to the queue's exponential backoff.
    if (e.cause !== undefined && isTransient(e.cause)) throw e.cause;
    return { requeueAfterMs: e.severity === 'Error' ? this.#invalidRetry : this.#waitingRetry };
  }

  async #finalize(ctx: StepContext, sip: SIPCluster): Promise<ReconcileOutcome> {
    if (!hasFinalizer(sip, SIP_FINALIZER)) return {};
    try {
      const released = await releaseAllHosts(ctx, sip);
      if (released.length > 0)
        await ctx.recorder.normal(sip, 'HostsReleased', `released ${released.join(', ')}`);
    } catch (e) {
      return this.#fail(ctx, sip, e);
    }
    try {
      await removeFinalizer(ctx.client, SIPClusterKind, sip, SIP_FINALIZER);
    } catch (e) {
      // Already gone: a previous reconcile removed the finalizer and the cache had not caught up.
      if (!isNotFound(e)) throw e;
    }
    return {};
  }
}
