import type { AuditEvent } from './audit.js';

/**
 * Where the time of a many-instance run went, read back from the API server's audit log (metadata
 * level: who did what to which object, and when). Per namespace, each Job and Deployment the
 * client (the bench or the operator) created is followed through the control plane's steps —
 * kube-controller-manager creating its pod (and, for a Deployment, its ReplicaSet), the scheduler
 * binding it, kwok playing the kubelet, the controller-manager marking it done — and the client's
 * own waits in between (previous object done → next one created). Nothing is polled for it.
 */
export interface Timeline {
  /** Step → durations in seconds, one per object (or per gap) where both ends were seen. */
  steps: Map<string, number[]>;
  /** Per object name (the same in every namespace): first/last created and last done, seconds from the start. */
  objects: Map<string, { created: number[]; done: number[] }>;
  /** The first client create of a Job/Deployment, epoch ms (the origin of `objects`). */
  start: number;
}

type Agent = 'kcm' | 'scheduler' | 'kwok' | 'client' | 'other';
const agentOf = (e: AuditEvent): Agent => {
  const ua = e.userAgent ?? '';
  if (ua.startsWith('kube-controller-manager/')) return 'kcm';
  if (ua.startsWith('kube-scheduler/')) return 'scheduler';
  if (ua.startsWith('kwok/')) return 'kwok';
  if (!ua || ua.startsWith('kube-apiserver/') || e.user?.username === 'system:apiserver') return 'other';
  return 'client';
};

interface Timed {
  t: number;
  name: string;
}
interface NamespaceEvents {
  owners: (Timed & { kind: 'Job' | 'Deployment' })[];
  replicaSets: Timed[];
  podCreates: number[];
  binds: Timed[];
  kwokPatches: Timed[];
  /** Last status write of the controller-manager per `kind/name`. */
  lastStatus: Map<string, number>;
  /** The client's primary object: its create and its last status write. */
  primaryCreated?: number;
  primaryLastStatus?: number;
}

const ok = (e: AuditEvent) => e.stage === 'ResponseComplete' && (e.responseStatus?.code ?? 0) < 300;

/**
 * `primary` is the resource of the client's own kind (e.g. `keystoneapis`): its create and its last
 * status write by the client frame each instance (apply → first object, last object done → Ready).
 */
export function buildTimeline(events: readonly AuditEvent[], primary?: string): Timeline {
  const byNs = new Map<string, NamespaceEvents>();
  const nsOf = (ns: string) => {
    let n = byNs.get(ns);
    if (!n) {
      n = { owners: [], replicaSets: [], podCreates: [], binds: [], kwokPatches: [], lastStatus: new Map() };
      byNs.set(ns, n);
    }
    return n;
  };
  for (const e of events) {
    const ref = e.objectRef;
    if (!ok(e) || !ref?.namespace || !e.stageTimestamp) continue;
    const t = Date.parse(e.stageTimestamp);
    const n = nsOf(ref.namespace);
    const name = ref.name ?? '';
    const agent = agentOf(e);
    const what = `${e.verb} ${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`;
    if (agent === 'client') {
      // The first create or apply (server-side apply is a patch that may create) of each object.
      const owner = /^(create|patch) (jobs|deployments)$/.exec(what);
      if (owner) {
        const kind = owner[2] === 'jobs' ? 'Job' : 'Deployment';
        if (!n.owners.some((o) => o.kind === kind && o.name === name)) n.owners.push({ t, name, kind });
      } else if (primary && what === `create ${primary}`) n.primaryCreated ??= t;
      else if (primary && (what === `patch ${primary}/status` || what === `update ${primary}/status`))
        n.primaryLastStatus = t;
    } else if (agent === 'kcm') {
      if (what === 'create pods') n.podCreates.push(t);
      else if (what === 'create replicasets') n.replicaSets.push({ t, name });
      else if (what === 'update jobs/status') n.lastStatus.set(`Job/${name}`, t);
      else if (what === 'update deployments/status') n.lastStatus.set(`Deployment/${name}`, t);
    } else if (agent === 'scheduler' && what === 'create pods/binding') n.binds.push({ t, name });
    else if (agent === 'kwok' && what === 'patch pods/status') n.kwokPatches.push({ t, name });
  }

  const steps = new Map<string, number[]>();
  const objects = new Map<string, { created: number[]; done: number[] }>();
  const starts = [...byNs.values()].flatMap((n) => n.owners.map((o) => o.t));
  const start = starts.length ? Math.min(...starts) : 0;
  const add = (step: string, from: number | undefined, to: number | undefined) => {
    if (from === undefined || to === undefined || to < from) return;
    const list = steps.get(step) ?? [];
    list.push((to - from) / 1000);
    steps.set(step, list);
  };
  for (const n of byNs.values()) {
    const owners = [...n.owners].sort((a, b) => a.t - b.t);
    let previousDone: number | undefined;
    for (const o of owners) {
      const prefix = o.kind === 'Job' ? 'job' : 'deployment';
      let podPrefix = o.name;
      let from = o.t;
      if (o.kind === 'Deployment') {
        const rs = n.replicaSets.find((r) => r.t >= o.t && r.name.startsWith(`${o.name}-`));
        add(`${prefix}: created → ReplicaSet`, o.t, rs?.t);
        if (!rs) continue;
        podPrefix = rs.name;
        from = rs.t;
      }
      const podName = new RegExp(`^${podPrefix.replace(/[.]/g, '\\.')}-[a-z0-9]{5}$`);
      const bind = n.binds.find((b) => b.t >= o.t && podName.test(b.name));
      const podCreated = bind ? n.podCreates.filter((t) => t >= from && t <= bind.t).pop() : undefined;
      const patches = bind ? n.kwokPatches.filter((p) => p.name === bind.name).map((p) => p.t) : [];
      const done = n.lastStatus.get(`${o.kind}/${o.name}`);
      add(`${prefix}: ${o.kind === 'Job' ? 'created' : 'ReplicaSet'} → pod created`, from, podCreated);
      add(`${prefix}: pod created → scheduled`, podCreated, bind?.t);
      add(`${prefix}: scheduled → running (kwok)`, bind?.t, patches[0]);
      if (o.kind === 'Job') {
        add('job: running → succeeded (kwok)', patches[0], patches[1]);
        add('job: succeeded → complete', patches[1], done);
      } else add('deployment: running → available', patches[0], done);
      add(`${prefix}: created → done`, o.t, done);
      add('client: previous object done → next created', previousDone, o.t);
      previousDone = done;
      const entry = objects.get(`${o.kind} ${o.name}`) ?? { created: [], done: [] };
      entry.created.push((o.t - start) / 1000);
      if (done !== undefined) entry.done.push((done - start) / 1000);
      objects.set(`${o.kind} ${o.name}`, entry);
    }
    if (primary && owners.length) {
      add(`client: ${primary} created → first object created`, n.primaryCreated, owners[0]?.t);
      add(`client: last object done → last ${primary} status write`, previousDone, n.primaryLastStatus);
    }
  }
  return { steps, objects, start };
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const s = (x: number) => (x >= 10 ? x.toFixed(0) : x.toFixed(1));

/** The timeline as report lines: each step's median/p90/max, then each object's spread over the run. */
export function describeTimeline(tl: Timeline): string[] {
  const lines: string[] = [];
  const width = Math.max(0, ...[...tl.steps.keys()].map((k) => k.length));
  for (const [step, values] of tl.steps) {
    const v = [...values].sort((a, b) => a - b);
    lines.push(
      `${step.padEnd(width)}  median ${s(quantile(v, 0.5))} s  p90 ${s(quantile(v, 0.9))} s  max ${s(v[v.length - 1] ?? Number.NaN)} s  (n=${v.length})`,
    );
  }
  for (const [name, o] of tl.objects) {
    const c = [...o.created].sort((a, b) => a - b);
    const d = [...o.done].sort((a, b) => a - b);
    lines.push(
      `${name}: created ${s(c[0] ?? Number.NaN)}–${s(c[c.length - 1] ?? Number.NaN)} s, done ${s(d[0] ?? Number.NaN)}–${s(d[d.length - 1] ?? Number.NaN)} s (median ${s(quantile(d, 0.5))} s; ${d.length}/${c.length} done)`,
    );
  }
  return lines;
}
