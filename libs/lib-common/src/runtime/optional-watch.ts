import type { Logger } from 'pino';
import { isNotFound } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient } from '../client/types.js';
import { sleep } from './backoff.js';
import { Informer, type InformerEvent, type InformerOptions } from './informer.js';

/** How often the presence of the kind is checked again (default 30 s). */
export const OPTIONAL_KIND_RECHECK_MS = 30_000;

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
 * for again every `recheckMs`, and once served an informer starts and every event, the first
 * list included, is handed to `onEvent`. If the CRD goes away, the informer stops until it is back.
 * Kept out of the shared cache on purpose: an informer of an absent kind never syncs, and the
 * controllers and the readiness probe wait for the shared cache to sync.
 */
export class OptionalKindWatch {
  private informer: Informer | undefined;
  private stopper: AbortController | undefined;
  private loop: Promise<void> | undefined;
  /** Last presence reported in the log (so a missing CRD is told once, not every recheck). */
  private told: boolean | undefined;

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
    while (!signal.aborted) {
      const served = await this.served();
      if (signal.aborted) break;
      if (served === true && !this.informer) this.startInformer();
      else if (served === false && this.informer) await this.stopInformer();
      await sleep(this.opts.recheckMs ?? OPTIONAL_KIND_RECHECK_MS, signal);
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
    this.informer = informer;
    informer.start();
  }

  private async stopInformer(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }
}
