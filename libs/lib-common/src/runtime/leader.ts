import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { sleep } from './backoff.js';

export interface LeaderElectionOptions {
  /** Lease name, e.g. `keystone-operator-leader`. */
  leaseName: string;
  namespace: string;
  /** Unique per replica; default `<hostname>_<uuid>` like controller-runtime. */
  identity?: string;
  /** How long a lease is valid without renewal (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a renewal before giving up leadership (default 10 s). */
  renewDeadlineMs?: number;
  /** Interval between attempts (default 2 s). */
  retryPeriodMs?: number;
  /** Hand the lease back on shutdown so a standby takes over at once (default true). */
  releaseOnCancel?: boolean;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type Lease = KubeObject & { spec?: LeaseSpec };

export interface LeaderCallbacks {
  onStartedLeading: () => void;
  /** Called the moment leadership is lost or released; stop reconciling synchronously here. */
  onStoppedLeading: () => void;
  logger?: Logger;
  onStatus?: (leading: boolean) => void;
}

/** MicroTime as the API expects it: RFC 3339 with six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection: a candidate
 * takes the lease when it is free or when its record has not changed for a lease duration (measured
 * on the local clock, so clock skew between replicas does not matter); the leader renews every retry
 * period and gives up leadership when no renewal succeeded within the renew deadline, or at once
 * when it finds another holder.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private observed: { record: string; at: number } | undefined;
  private leading = false;
  private stopController: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: LeaderElectionOptions,
    private readonly cb: LeaderCallbacks,
  ) {
    this.identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
    this.leaseMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryMs = opts.retryPeriodMs ?? 2_000;
    if (this.leaseMs <= this.renewDeadlineMs) throw new RangeError('leaseDuration must exceed renewDeadline');
    if (this.renewDeadlineMs <= this.retryMs * 1.2)
      throw new RangeError('renewDeadline must exceed retryPeriod × 1.2');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Campaigns in the background until `stop()`. */
  start(): void {
    if (this.loop) return;
    const stop = new AbortController();
    this.stopController = stop;
    this.loop = this.run(stop.signal);
  }

  /** Stops campaigning; a leader steps down first and (by default) releases the lease. */
  async stop(): Promise<void> {
    this.stopController?.abort();
    await this.loop;
    this.loop = undefined;
    if (this.leading) {
      this.setLeading(false);
      if (this.opts.releaseOnCancel !== false) await this.release();
    }
  }

  private async run(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      // Candidate: try every retry period (with jitter, so candidates do not move in lockstep).
      if (!(await this.tryAcquireOrRenew())) {
        await sleep(this.retryMs * (1 + Math.random() * 0.2), stop);
        continue;
      }
      this.setLeading(true);
      this.cb.logger?.info({ lease: this.opts.leaseName, identity: this.identity }, 'acquired leadership');
      // Leader: renew until a renewal fails for a whole renew deadline, or someone else holds it.
      let lastRenew = Date.now();
      while (!stop.aborted) {
        await sleep(this.retryMs, stop);
        if (stop.aborted) break;
        const renewed = await this.tryAcquireOrRenew();
        if (renewed) lastRenew = Date.now();
        else if (this.heldByOther() || Date.now() - lastRenew >= this.renewDeadlineMs) {
          this.setLeading(false);
          this.cb.logger?.warn({ lease: this.opts.leaseName, identity: this.identity }, 'lost leadership');
          break;
        }
      }
    }
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    this.cb.onStatus?.(leading);
    if (leading) this.cb.onStartedLeading();
    else this.cb.onStoppedLeading();
  }

  private heldByOther(): boolean {
    if (!this.observed) return false;
    const holder = (JSON.parse(this.observed.record) as LeaseSpec).holderIdentity;
    return Boolean(holder) && holder !== this.identity;
  }

  /** One attempt; true when this replica holds the lease afterwards. Never throws. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const ref = { namespace: this.opts.namespace, name: this.opts.leaseName };
    const now = new Date();
    try {
      const lease = await this.client.get<Lease>(Kinds.Lease, ref);
      if (!lease) {
        const spec = this.spec(now, undefined);
        await this.client.create<Lease>(Kinds.Lease, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { ...ref },
          spec,
        });
        this.observe(spec);
        return true;
      }
      const current = lease.spec ?? {};
      this.observe(current);
      const holder = current.holderIdentity;
      const observedAt = this.observed?.at ?? 0;
      // The holder's own lease duration decides (a released lease says 1 s), as in client-go.
      const validMs = current.leaseDurationSeconds ? current.leaseDurationSeconds * 1000 : this.leaseMs;
      if (holder && holder !== this.identity && Date.now() < observedAt + validMs) return false;
      const spec = this.spec(now, current);
      await this.client.replace<Lease>(Kinds.Lease, { ...lease, spec });
      this.observe(spec);
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) {
        this.cb.logger?.warn({ lease: this.opts.leaseName, err: String(err) }, 'lease request failed');
      }
      return false;
    }
  }

  private spec(now: Date, current: LeaseSpec | undefined): LeaseSpec {
    const mine = current?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
      acquireTime: mine && current?.acquireTime ? current.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions:
        (current?.leaseTransitions ?? 0) + (current && !mine && current.holderIdentity ? 1 : 0),
    };
  }

  /** Remembers when the record last changed, by the local clock. */
  private observe(spec: LeaseSpec): void {
    const record = JSON.stringify({
      holderIdentity: spec.holderIdentity ?? '',
      renewTime: spec.renewTime ?? '',
      acquireTime: spec.acquireTime ?? '',
      leaseTransitions: spec.leaseTransitions ?? 0,
    });
    if (this.observed?.record !== record) this.observed = { record, at: Date.now() };
  }

  /** Empties the holder so a standby can take over without waiting out the lease. */
  private async release(): Promise<void> {
    const ref = { namespace: this.opts.namespace, name: this.opts.leaseName };
    try {
      const lease = await this.client.get<Lease>(Kinds.Lease, ref);
      if (!lease || lease.spec?.holderIdentity !== this.identity) return;
      const now = microTime(new Date());
      await this.client.replace<Lease>(Kinds.Lease, {
        ...lease,
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: lease.spec?.leaseTransitions ?? 0,
        },
      });
      this.cb.logger?.info({ lease: this.opts.leaseName }, 'released leadership');
    } catch (err) {
      this.cb.logger?.warn({ lease: this.opts.leaseName, err: String(err) }, 'could not release the lease');
    }
  }
}
