import type { KindRef, KubeClient, KubeObject } from '@stackops/lib-common/client';
import { type AuditEvent, isWrite, resourceOf } from './audit.js';

type Workload = KubeObject & {
  spec?: { replicas?: number };
  status?: {
    succeeded?: number;
    conditions?: { type: string; status: string }[];
    observedGeneration?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    desiredNumberScheduled?: number;
    numberReady?: number;
    updatedNumberScheduled?: number;
  };
};

/** Whether the control plane has finished with a Job, Deployment or DaemonSet (kwok plays the kubelet). */
export function controlPlaneDone(obj: Workload): boolean {
  const s = obj.status ?? {};
  const cond = (type: string) => s.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const current = (s.observedGeneration ?? 0) >= (obj.metadata.generation ?? 0);
  switch (obj.kind) {
    case 'Job':
      return cond('Complete') || (s.succeeded ?? 0) > 0;
    case 'Deployment': {
      const want = obj.spec?.replicas ?? 1;
      return current && (s.updatedReplicas ?? 0) >= want && (s.availableReplicas ?? 0) >= want;
    }
    case 'DaemonSet':
      return (
        current &&
        (s.numberReady ?? 0) >= (s.desiredNumberScheduled ?? 0) &&
        (s.desiredNumberScheduled ?? 0) > 0
      );
    default:
      return false;
  }
}

/** Total length of the union of some [start, end] intervals (overlapping work is counted once). */
export function unionLength(intervals: readonly (readonly [number, number])[]): number {
  const sorted = [...intervals].filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curStart = Number.NEGATIVE_INFINITY;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const [a, b] of sorted) {
    if (a > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = a;
      curEnd = b;
    } else curEnd = Math.max(curEnd, b);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/**
 * Watches the Jobs/Deployments/DaemonSets of a scope and records, per object, when it appeared
 * and when the control plane had finished with it (or, for an object the operator changes, from
 * each change to done). The sum of those intervals is the time the control plane imposes; the
 * rest of apply → Ready is the operator's.
 */
export class ControlPlaneClock {
  private readonly intervals = new Map<string, [number, number | undefined]>();
  private readonly stopper = new AbortController();
  private readonly watches: Promise<unknown>[] = [];

  constructor(client: KubeClient, kinds: readonly KindRef[], namespace?: string) {
    for (const kind of kinds) {
      let opened: () => void = () => {};
      const open = new Promise<void>((r) => {
        opened = r;
      });
      this.openWaits.push(open);
      this.watches.push(
        client
          .watch<Workload>(
            kind,
            { ...(namespace ? { namespace } : {}), signal: this.stopper.signal, onOpen: () => opened() },
            (e) => this.seen(e.type, e.object),
          )
          .catch(() => opened()),
      );
    }
  }

  private readonly openWaits: Promise<void>[] = [];

  /** Resolves once every watch is open (so nothing created afterwards is missed). */
  ready(): Promise<void> {
    return Promise.all(this.openWaits).then(() => undefined);
  }

  private seen(type: string, obj: Workload): void {
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    const key = `${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}/${obj.metadata.uid}`;
    const now = performance.now();
    const done = controlPlaneDone(obj);
    const cur = this.intervals.get(key);
    if (!cur) this.intervals.set(key, [now, done ? now : undefined]);
    else if (cur[1] === undefined && done) cur[1] = now;
    else if (cur[1] !== undefined && !done) {
      // changed again (a rollout): a new interval from now
      this.intervals.set(`${key}#${now}`, [cur[0], cur[1]]);
      this.intervals.set(key, [now, undefined]);
    }
  }

  /**
   * Counts [start, end] as control-plane time too: the API server answering the instance's own
   * create, which it may hold for seconds while a CRD established a moment ago settles.
   */
  imposed(start: number, end: number): void {
    this.intervals.set(`imposed#${start}`, [start, end]);
  }

  /** The control plane's work between `from` and `until` (performance.now() values), as spans. */
  spans(from: number, until: number): [number, number][] {
    const spans: [number, number][] = [];
    for (const [start, end] of this.intervals.values()) {
      const a = Math.max(start, from);
      const b = Math.min(end ?? until, until);
      if (b > a) spans.push([a, b]);
    }
    return spans;
  }

  /** Seconds of control-plane work between `from` and `until` (performance.now() values). */
  seconds(from: number, until: number): number {
    return unionLength(this.spans(from, until)) / 1000;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await Promise.allSettled(this.watches);
  }
}

/** [a, b] without the parts any of `holes` covers (both unions of intervals). */
function subtract(
  spans: readonly [number, number][],
  holes: readonly [number, number][],
): [number, number][] {
  let rest = [...spans];
  for (const [h0, h1] of holes) {
    rest = rest.flatMap(([a, b]): [number, number][] => {
      if (h1 <= a || h0 >= b) return [[a, b]];
      return [
        ...(h0 > a ? [[a, h0] as [number, number]] : []),
        ...(h1 < b ? [[h1, b] as [number, number]] : []),
      ];
    });
  }
  return rest;
}

/**
 * The API server's own time on the subject's writes (not its Events, which nothing waits for) that
 * no control-plane work overlapped, between `from` and `until` (performance.now() values): each
 * write from its receipt to its answer, from the audit log. An operator making these writes, in
 * this order, cannot finish sooner than the control plane's time plus this, whatever it does in
 * between; the rest of apply → done is its own (watch latency, CPU, waits).
 */
export function writesOutsideControlPlane(
  events: readonly AuditEvent[],
  subject: (e: AuditEvent) => boolean,
  controlPlane: readonly [number, number][],
  from: number,
  until: number,
): { seconds: number; writes: number } {
  // Audit times are wall-clock; the clock's are performance.now().
  const toNow = (iso: string | undefined) => (iso ? Date.parse(iso) - performance.timeOrigin : Number.NaN);
  const seen = new Set<string>();
  const spans: [number, number][] = [];
  for (const e of events) {
    if (seen.has(e.auditID) || !subject(e) || !isWrite(e.verb, resourceOf(e)) || resourceOf(e) === 'events')
      continue;
    seen.add(e.auditID);
    const a = Math.max(toNow(e.requestReceivedTimestamp), from);
    const b = Math.min(toNow(e.stageTimestamp), until);
    if (b > a) spans.push([a, b]);
  }
  return { seconds: unionLength(subtract(spans, controlPlane)) / 1000, writes: seen.size };
}
