import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../src/audit.js';
import { buildTimeline, describeTimeline } from '../src/timeline.js';

const t0 = Date.parse('2026-11-24T12:00:00Z');
let id = 0;
/** One completed request at `seconds` after t0. */
const at = (
  seconds: number,
  agent: string,
  verb: string,
  resource: string,
  name = '',
  ns = 'ns-1',
  code = 201,
): AuditEvent => {
  const [res, subresource] = resource.split('/');
  return {
    auditID: String(++id),
    stage: 'ResponseComplete',
    stageTimestamp: new Date(t0 + seconds * 1000).toISOString(),
    verb,
    requestURI: '/',
    userAgent: agent,
    objectRef: { resource: res, ...(subresource ? { subresource } : {}), namespace: ns, name },
    responseStatus: { code },
  };
};
const kcm =
  'kube-controller-manager/v1.34.4 (linux/amd64) kubernetes/x/system:serviceaccount:kube-system:job-controller';
const sched = 'kube-scheduler/v1.34.4 (linux/amd64) kubernetes/x/scheduler';
const kwok = 'kwok/v0.7.0 (linux/amd64)';
const op = 'stackops/keystone-operator';

const step = (events: AuditEvent[], name: string, primary?: string) =>
  buildTimeline(events, primary).steps.get(name);

describe('timeline from the audit log', () => {
  const job = [
    at(0, op, 'create', 'keystoneapis', 'keystone'),
    at(1, op, 'create', 'jobs', 'keystone-db-sync'),
    at(3, kcm, 'create', 'pods'), // generateName: no name in the audit event
    at(4, sched, 'create', 'pods/binding', 'keystone-db-sync-abcde'),
    at(4.5, kwok, 'patch', 'pods/status', 'keystone-db-sync-abcde', 'ns-1', 200),
    at(5, kwok, 'patch', 'pods/status', 'keystone-db-sync-abcde', 'ns-1', 200),
    at(6, kcm, 'update', 'jobs/status', 'keystone-db-sync', 'ns-1', 200),
    at(8, kcm, 'update', 'jobs/status', 'keystone-db-sync', 'ns-1', 200),
    // a failed request is not a step
    at(8.5, op, 'create', 'deployments', 'keystone', 'ns-1', 409),
    // server-side apply creates it; a later apply of the same object is not a new object
    at(9, op, 'patch', 'deployments', 'keystone', 'ns-1', 201),
    at(9.5, kcm, 'create', 'replicasets', 'keystone-7d9f8c6b5'),
    at(10, kcm, 'create', 'pods'),
    at(11, sched, 'create', 'pods/binding', 'keystone-7d9f8c6b5-xyz12'),
    at(12, kwok, 'patch', 'pods/status', 'keystone-7d9f8c6b5-xyz12', 'ns-1', 200),
    at(13, kcm, 'update', 'deployments/status', 'keystone', 'ns-1', 200),
    at(14, op, 'patch', 'deployments', 'keystone', 'ns-1', 200),
    at(15, op, 'patch', 'keystoneapis/status', 'keystone', 'ns-1', 200),
  ];

  it('follows a Job through the controller-manager, the scheduler and kwok, to its last status write', () => {
    expect(step(job, 'job: created → pod created')).toEqual([2]);
    expect(step(job, 'job: pod created → scheduled')).toEqual([1]);
    expect(step(job, 'job: scheduled → running (kwok)')).toEqual([0.5]);
    expect(step(job, 'job: running → succeeded (kwok)')).toEqual([0.5]);
    expect(step(job, 'job: succeeded → complete')).toEqual([3]);
    expect(step(job, 'job: created → done')).toEqual([7]);
  });

  it('follows a Deployment through its ReplicaSet and tells its pod from a Job pod of a similar name', () => {
    expect(step(job, 'deployment: created → ReplicaSet')).toEqual([0.5]);
    expect(step(job, 'deployment: ReplicaSet → pod created')).toEqual([0.5]);
    expect(step(job, 'deployment: scheduled → running (kwok)')).toEqual([1]);
    expect(step(job, 'deployment: running → available')).toEqual([1]);
    expect(step(job, 'deployment: created → done')).toEqual([4]);
  });

  it("shows the client's own waits: between objects, and around them for its primary kind", () => {
    expect(step(job, 'client: previous object done → next created')).toEqual([1]);
    expect(step(job, 'client: keystoneapis created → first object created', 'keystoneapis')).toEqual([1]);
    expect(step(job, 'client: last object done → last keystoneapis status write', 'keystoneapis')).toEqual([
      2,
    ]);
  });

  it('spreads each object over the run and prints one line per step and object', () => {
    const other = job.map((e) => ({
      ...e,
      auditID: `b${e.auditID}`,
      stageTimestamp: new Date(Date.parse(e.stageTimestamp ?? '') + 2000).toISOString(),
      objectRef: { ...e.objectRef, namespace: 'ns-2' },
    }));
    const tl = buildTimeline([...job, ...other]);
    expect(tl.objects.get('Job keystone-db-sync')).toEqual({ created: [0, 2], done: [7, 9] });
    const lines = describeTimeline(tl);
    expect(lines).toContain(
      'Job keystone-db-sync: created 0.0–2.0 s, done 7.0–9.0 s (median 9.0 s; 2/2 done)',
    );
    expect(lines.find((l) => l.startsWith('job: created → done'))).toMatch(
      /median 7\.0 s {2}p90 7\.0 s {2}max 7\.0 s {2}\(n=2\)$/,
    );
  });
});
