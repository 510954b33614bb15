import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

/** The fields of a kube-apiserver audit event (audit.k8s.io/v1, JSON lines) the bench reads. */
export interface AuditEvent {
  auditID: string;
  stage: string;
  /** When the request reached this stage (RFC 3339, microseconds). */
  stageTimestamp?: string;
  /** When the API server received the request (RFC 3339, microseconds). */
  requestReceivedTimestamp?: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user?: { username?: string };
  objectRef?: {
    resource?: string;
    subresource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
  };
  responseStatus?: { code?: number };
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Reviews are `create`s that store nothing: questions to the API server, not writes. */
const REVIEWS =
  /^(selfsubjectreviews|selfsubjectaccessreviews|selfsubjectrulesreviews|subjectaccessreviews|tokenreviews)$/;

/** A request that changes stored state (a review is a question, not a write). */
export const isWrite = (verb: string, resource = ''): boolean =>
  WRITE_VERBS.has(verb) && !REVIEWS.test(resource);

/** What the control plane itself and the bench send: never the measured process's requests. */
const NOT_SUBJECT = /^(kube-apiserver|kube-controller-manager|kube-scheduler|kwok|stackops-bench)\//;

/**
 * Which audited requests are the measured process's. With a pattern: those whose user agent matches
 * it (`stackops/` for ours; a Go operator sends `<binary>/<version> …`). Without: everything but
 * the control plane, kube-env's probes (no user agent) and the bench's own client.
 */
export function subjectFilter(userAgent?: RegExp): (e: AuditEvent) => boolean {
  if (userAgent) return (e) => userAgent.test(e.userAgent ?? '');
  return (e) => !!e.userAgent && !NOT_SUBJECT.test(e.userAgent) && e.user?.username !== 'system:apiserver';
}

/** `resource[/subresource]`, or the path for requests without one (discovery, /version). */
export function resourceOf(e: AuditEvent): string {
  const r = e.objectRef;
  if (r?.resource) return `${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
  return e.requestURI.split('?')[0] ?? e.requestURI;
}

/** Requests counted once each (a watch has two events: started and completed). */
export class RequestTally {
  readonly byKey = new Map<string, number>();
  total = 0;
  writes = 0;

  add(e: AuditEvent): void {
    const key = `${e.verb} ${resourceOf(e)}`;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    this.total += 1;
    if (isWrite(e.verb, resourceOf(e))) this.writes += 1;
  }

  /** `verb resource ×n` sorted by count, for the detail lines. */
  describe(limit = 12): string {
    const rows = [...this.byKey].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const shown = rows.slice(0, limit).map(([k, n]) => `${k} ×${n}`);
    if (rows.length > limit) shown.push(`… ${rows.length - limit} more`);
    return shown.join(', ');
  }

  /** Only the writes, `verb resource ×n`. */
  describeWrites(): string {
    return [...this.byKey]
      .filter(([k]) => {
        const [verb = '', resource = ''] = k.split(' ');
        return isWrite(verb, resource);
      })
      .map(([k, n]) => `${k} ×${n}`)
      .join(', ');
  }
}

/** Parses audit lines; a partial last line (still being written) is left for the next read. */
export function parseAuditLines(text: string): { events: AuditEvent[]; consumed: number } {
  const events: AuditEvent[] = [];
  let consumed = 0;
  for (;;) {
    const nl = text.indexOf('\n', consumed);
    if (nl < 0) break;
    const line = text.slice(consumed, nl);
    consumed = nl + 1;
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as AuditEvent);
    } catch {
      // not an event line
    }
  }
  return { events, consumed };
}

/** Reads an audit log from offsets: `mark()` now, `since(mark)` later gives the requests in between. */
export class AuditLog {
  constructor(readonly path: string) {}

  /** The current end of the log. */
  mark(): number {
    return existsSync(this.path) ? statSync(this.path).size : 0;
  }

  /** Every event written between two marks (default: until now). */
  read(from: number, to = this.mark()): AuditEvent[] {
    if (to <= from) return [];
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(to - from);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, from + got);
        if (n === 0) break;
        got += n;
      }
      return parseAuditLines(buf.subarray(0, got).toString('utf8')).events;
    } finally {
      closeSync(fd);
    }
  }

  /** The subject's requests between two marks, each counted once (by auditID). */
  tally(filter: (e: AuditEvent) => boolean, from: number, to?: number): RequestTally {
    return tallyOf(this.read(from, to), filter);
  }
}

/** The subject's requests among `events`, each counted once (by auditID). */
export function tallyOf(events: readonly AuditEvent[], filter: (e: AuditEvent) => boolean): RequestTally {
  const tally = new RequestTally();
  const seen = new Set<string>();
  for (const e of events) {
    if (!filter(e) || seen.has(e.auditID)) continue;
    seen.add(e.auditID);
    tally.add(e);
  }
  return tally;
}

/**
 * What N instances cannot take fewer requests than, read from what the subject sent: one write per
 * distinct object it made or changed other than the instances (the objects an instance owns), one
 * metadata write per instance (its finalizer), and one watch per namespace it watched by name (an
 * instance's input Secret); everything else it sent is listed as above the floor (status writes,
 * Events, second writes to the same object, lists, other watches). Per instance.
 */
export function requestFloor(
  events: readonly AuditEvent[],
  filter: (e: AuditEvent) => boolean,
  primaryResource: string,
  count: number,
): { value: number; detail: string } {
  const seen = new Set<string>();
  const objects = new Set<string>();
  const finalized = new Set<string>();
  const watchedIn = new Set<string>();
  const above = new RequestTally();
  for (const e of events) {
    if (!filter(e) || seen.has(e.auditID)) continue;
    seen.add(e.auditID);
    const r = e.objectRef ?? {};
    const at = `${r.namespace ?? ''}/${r.name ?? e.auditID}`;
    if (isWrite(e.verb, r.resource) && e.verb !== 'delete' && !r.subresource && r.resource !== 'events') {
      const key = r.resource === primaryResource ? at : `${r.resource} ${at}`;
      const set = r.resource === primaryResource ? finalized : objects;
      if (!set.has(key)) {
        set.add(key);
        continue;
      }
    } else if (e.verb === 'watch' && r.namespace && !watchedIn.has(`${r.resource} ${r.namespace}`)) {
      watchedIn.add(`${r.resource} ${r.namespace}`);
      continue;
    }
    above.add(e);
  }
  const per = (n: number) => Number((n / count).toPrecision(3));
  return {
    value: (objects.size + finalized.size + watchedIn.size) / count,
    detail: `${per(objects.size)} owned objects (first write of each) + ${per(finalized.size)} ${primaryResource} metadata (finalizer) + ${per(watchedIn.size)} watch by name (input) per instance; above the floor, ${per(above.total)} per instance: ${above.describe()}`,
  };
}
