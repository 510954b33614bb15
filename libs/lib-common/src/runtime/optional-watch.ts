import type { Logger } from 'pino';
import { isNotFound } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient } from '../client/types.js';
import { sleep } from './backoff.js';
import { Informer, type InformerEvent, type InformerOptions } from './informer.js';

/** The first wait before the presence of an absent kind is checked again (default 30 s). */
const OPTIONAL_KIND_RECHECK_MS = 30_000;
/** The longest wait between two checks of an absent kind: the wait doubles up to it. */
const OPTIONAL_KIND_MAX_RECHECK_MS = 300_000;

export interface OptionalKindWatchOptions {
  /** The namespaces to watch (all when absent), as the operator's shared cache does. */
  namespaces?: readonly string[] | undefined;
  logger?: Logger;
  recheckMs?: number;
  informer?: Omit<InformerOptions, 'namespaces' | 'logger'>;
}

/**
 * A watch on a kind whose CRD another operator installs, and which may therefore be absent (a
 * Galera, a Memcached, a Topology): it is a trigger, not a cache. While the API server does not
 * serve the kind (a list answers 404) nothing is watched and nothing fails; the kind is looked
 * for again after `recheckMs`, then twice as long each time up to 5 min (an idle operator sends
 * next to nothing), and once served an informer starts and every event, the first list included,
 * is handed to `onEvent`. A running informer costs no request of its own: only when it has had to
 * restart after an error is presence checked again, and if the CRD went away it stops.
 * Kept out of the shared cache on purpose: an informer of an absent kind never syncs, and the
 * controllers and the readiness probe wait for the shared cache to sync.
 */
export class OptionalKindWatch {
  private informer: Informer | undefined;
  private stopper: AbortController | undefined;
  private loop: Promise<void> | undefined;
  /** Last presence reported in the log (so a missing CRD is told once, not every recheck). */
  private told: boolean | undefined;
  /** The informer's error restarts already looked at. */
  private errorsSeen = 0;

  constructor(
    private readonly client: KubeClient,
    readonly kind: KindRef,
    private readonly onEvent: (e: InformerEvent) => void,
    private readonly opts: OptionalKindWatchOptions = {},
  ) {}

  /** Whether the kind is served and watched right now. */
  get watching(): boolean {
    return this.informer !== undefined;
  }

  start(): void {
    if (this.stopper) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    this.loop = this.run(stopper.signal);
  }

  async stop(): Promise<void> {
    this.stopper?.abort();
    await this.loop;
    this.stopper = undefined;
    this.loop = undefined;
    await this.stopInformer();
  }

  private async run(signal: AbortSignal): Promise<void> {
    const first = this.opts.recheckMs ?? OPTIONAL_KIND_RECHECK_MS;
    const longest = Math.max(first, OPTIONAL_KIND_MAX_RECHECK_MS);
    let wait = first;
    while (!signal.aborted) {
      let next = first;
      const informer = this.informer;
      if (informer) {
        // Watching: a timer looks at the informer's restarts, no request unless it failed.
        if (informer.restarts.error > this.errorsSeen) {
          this.errorsSeen = informer.restarts.error;
          if ((await this.served()) === false) await this.stopInformer();
        }
        wait = first;
      } else {
        const served = await this.served();
        if (signal.aborted) break;
        if (served === true) {
          this.startInformer();
          wait = first;
        } else {
          next = wait;
          if (served === false) wait = Math.min(wait * 2, longest);
        }
      }
      await sleep(next, signal);
    }
  }

  /** true: served; false: not served (404); undefined: could not tell (kept as it is). */
  private async served(): Promise<boolean | undefined> {
    const namespace = this.kind.namespaced ? this.opts.namespaces?.[0] : undefined;
    try {
      await this.client.list(this.kind, { limit: 1, ...(namespace ? { namespace } : {}) });
      this.tell(true);
      return true;
    } catch (err) {
      if (isNotFound(err)) {
        this.tell(false);
        return false;
      }
      this.opts.logger?.warn(
        { kind: this.kind.kind, err: String(err) },
        'cannot tell whether the kind is served',
      );
      return undefined;
    }
  }

  private tell(served: boolean): void {
    if (this.told === served) return;
    this.told = served;
    this.opts.logger?.info(
      { kind: this.kind.kind, group: this.kind.group },
      served ? 'optional kind served: watching it' : 'optional kind not served (CRD absent): not watching it',
    );
  }

  private startInformer(): void {
    const informer = new Informer(this.client, this.kind, {
      ...this.opts.informer,
      ...(this.opts.namespaces?.length ? { namespaces: [...this.opts.namespaces] } : {}),
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
    });
    informer.on(this.onEvent);
    this.errorsSeen = 0;
    this.informer = informer;
    informer.start();
  }

  private async stopInformer(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }
}
