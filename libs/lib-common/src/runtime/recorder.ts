import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isNamespaceTerminating, isNotFound } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';

export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events about objects; best effort, never throws. */
export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void>;
  normal(obj: KubeObject, reason: string, message: string): Promise<void>;
  warning(obj: KubeObject, reason: string, message: string): Promise<void>;
  /** Resolves once every Event sent so far is written or given up (callers may not await them). */
  settled?(): Promise<void>;
}

export interface RecorderOptions {
  /** `source.component` / `reportingComponent`, e.g. `keystone-operator`. */
  component: string;
  /** `reportingInstance`, e.g. the pod name. */
  instance?: string;
  logger?: Logger;
  /** How many distinct events to remember for deduplication (default 4096). */
  maxRemembered?: number;
  now?: () => Date;
}

/** Events API caps notes at 1 kB; longer messages are cut. */
const MAX_MESSAGE = 1024;

interface Seen {
  name: string;
  namespace: string;
  count: number;
}

/**
 * core/v1 Events, deduplicated like client-go's correlator: the same (object, type, reason,
 * message) again bumps `count` and `lastTimestamp` of the existing Event instead of creating a new
 * one. Events carry only a reference to the object and the caller's message: never object content,
 * so a Secret's values cannot end up in them unless a caller writes them into the message.
 */
export class KubeEventRecorder implements EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly max: number;
  private readonly now: () => Date;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: RecorderOptions,
  ) {
    this.max = opts.maxRemembered ?? 4096;
    this.now = opts.now ?? (() => new Date());
  }

  normal(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Normal', reason, message);
  }

  warning(obj: KubeObject, reason: string, message: string): Promise<void> {
    return this.event(obj, 'Warning', reason, message);
  }

  event(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const sent = this.send(obj, type, reason, message);
    this.inFlight.add(sent);
    const done = (): void => {
      this.inFlight.delete(sent);
    };
    sent.then(done, done);
    return sent;
  }

  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async send(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const note = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const key = [
      obj.metadata.uid ?? `${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}`,
      type,
      reason,
      note,
    ].join('\u0000');
    const ts = this.now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    try {
      const prior = this.seen.get(key);
      if (prior) {
        try {
          await this.client.patch(
            Kinds.Event,
            { namespace: prior.namespace, name: prior.name },
            { count: prior.count + 1, lastTimestamp: ts },
            'merge',
          );
          prior.count += 1;
          this.remember(key, prior);
          return;
        } catch (err) {
          if (!isNotFound(err)) throw err;
          // The Event expired (TTL) or was deleted: start a new one.
        }
      }
      const namespace = obj.metadata.namespace || 'default';
      const name = `${obj.metadata.name ?? 'object'}.${Date.now().toString(16)}${randomBytes(3).toString('hex')}`;
      await this.client.create(Kinds.Event, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
          ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
          ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
        },
        type,
        reason,
        message: note,
        source: { component: this.opts.component },
        reportingComponent: this.opts.component,
        reportingInstance: this.opts.instance ?? this.opts.component,
        firstTimestamp: ts,
        lastTimestamp: ts,
        count: 1,
      });
      this.remember(key, { name, namespace, count: 1 });
    } catch (err) {
      // A namespace being deleted refuses new Events: expected while its objects are cleaned up.
      if (isNamespaceTerminating(err))
        this.opts.logger?.debug({ reason }, 'event dropped: namespace terminating');
      else this.opts.logger?.warn({ err: String(err), reason }, 'could not record event');
    }
  }

  /** Keeps the most recently used entries (Map order = insertion order). */
  private remember(key: string, seen: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, seen);
    if (this.seen.size > this.max) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}
