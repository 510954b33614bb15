import type { KubeClient } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  parseAuditLines,
  RequestTally,
  requestFloor,
  resourceOf,
  subjectFilter,
} from '../src/audit.js';
import {
  ControlPlaneClock,
  controlPlaneDone,
  unionLength,
  writesOutsideControlPlane,
} from '../src/control-plane-time.js';
import { asBaselineObject, bodyKey, type OperatorBodies } from '../src/operator-bodies.js';
import { cpuSeconds, sample } from '../src/proc.js';
import { summaryTable } from '../src/report.js';
import { describeBodies, describeStages, stageStatus } from '../src/runner.js';
import { parseStartsArgs, summarizeStarts } from '../src/starts.js';
import { formatNumber, summarize } from '../src/stats.js';
import { subjectEnv } from '../src/subject.js';
import { watchListsOf } from '../src/watch-list-floor.js';
import { watchedKind } from '../src/watcher.js';
import { chartMemoryLimitMiB, chartNodeOptions, operatorDirs, workloads } from '../src/workloads.js';

const event = (over: Partial<AuditEvent>): AuditEvent => ({
  auditID: 'a',
  stage: 'ResponseComplete',
  verb: 'get',
  requestURI: '/api/v1/namespaces/ns/secrets/x',
  userAgent: 'stackops/stackops-keystone-operator',
  objectRef: { resource: 'secrets', namespace: 'ns', name: 'x' },
  ...over,
});

describe('audit log', () => {
  it('parses whole lines and leaves a partial last line for later', () => {
    const text = `${JSON.stringify(event({ auditID: '1' }))}\n${JSON.stringify(event({ auditID: '2' }))}\n{"auditID":`;
    const { events, consumed } = parseAuditLines(text);
    expect(events.map((e) => e.auditID)).toEqual(['1', '2']);
    expect(text.slice(consumed)).toBe('{"auditID":');
  });

  it("gives a subject the bench's environment without node's variables, then what its spec sets", () => {
    const env = subjectEnv(
      { PATH: '/bin', HOME: '/root', NODE_EXTRA_CA_CERTS: '/etc/ca.crt', NODE_OPTIONS: '--inspect' },
      { NODE_ENV: 'production', ADDR: '127.0.0.1:{probePort}' },
      { probePort: '8081' },
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/root', NODE_ENV: 'production', ADDR: '127.0.0.1:8081' });
  });

  it("tells the subject's requests from the control plane's and the bench's", () => {
    const ours = subjectFilter();
    expect(ours(event({}))).toBe(true);
    expect(ours(event({ userAgent: 'keystone-operator/v0.0.0 (linux/amd64) kubernetes/$Format' }))).toBe(
      true,
    );
    for (const ua of [
      'kube-controller-manager/v1.34.4 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:job-controller',
      'kube-scheduler/v1.34.4',
      'kwok/v0.7.0 (linux/amd64)',
      'stackops-bench/0.1.0',
      '',
    ])
      expect(ours(event({ userAgent: ua }))).toBe(false);
    expect(ours(event({ userAgent: 'kube-apiserver/v1.34.4', user: { username: 'system:apiserver' } }))).toBe(
      false,
    );
    const go = subjectFilter(/^manager\//);
    expect(go(event({ userAgent: 'manager/v0.0.0 (linux/amd64)' }))).toBe(true);
    expect(go(event({}))).toBe(false);
  });

  it('counts by verb and resource/subresource; reviews are not writes', () => {
    const t = new RequestTally();
    t.add(event({ verb: 'patch', objectRef: { resource: 'keystoneapis', subresource: 'status' } }));
    t.add(event({ verb: 'patch', objectRef: { resource: 'keystoneapis', subresource: 'status' } }));
    t.add(event({ verb: 'create', objectRef: { resource: 'selfsubjectreviews' } }));
    t.add(event({ verb: 'get', objectRef: undefined, requestURI: '/version?timeout=32s' }));
    expect(t.total).toBe(4);
    expect(t.writes).toBe(2);
    expect(t.describe()).toBe('patch keystoneapis/status ×2, create selfsubjectreviews ×1, get /version ×1');
    expect(t.describeWrites()).toBe('patch keystoneapis/status ×2');
    expect(resourceOf(event({ objectRef: { resource: 'pods', subresource: 'log' } }))).toBe('pods/log');
  });
});

describe('watch-list floor', () => {
  it("takes the subject's watch-lists, each once, and nothing else", () => {
    const list = '/apis/x.io/v1/things?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan';
    const events = [
      event({ auditID: '1', stage: 'ResponseStarted', verb: 'watch', requestURI: list }),
      event({ auditID: '1', stage: 'ResponseComplete', verb: 'watch', requestURI: list }),
      event({ auditID: '2', verb: 'watch', requestURI: '/api/v1/secrets?watch=true&resourceVersion=5' }),
      event({ auditID: '3', verb: 'list', requestURI: '/api/v1/secrets?sendInitialEvents=true' }),
      event({ auditID: '4', verb: 'watch', requestURI: list, userAgent: 'kube-controller-manager/v1.34' }),
      event({ auditID: '5', verb: 'watch', requestURI: '/api/v1/pods?watch=true&sendInitialEvents=true' }),
    ];
    expect(watchListsOf(events, subjectFilter(/^stackops\//))).toEqual([
      list,
      '/api/v1/pods?watch=true&sendInitialEvents=true',
    ]);
  });
});

describe('request floor', () => {
  it('counts one write per owned object, the finalizer and the input watch; the rest is above it', () => {
    let id = 0;
    const e = (verb: string, resource: string, name: string, over: Partial<AuditEvent> = {}) =>
      event({ auditID: String(id++), verb, objectRef: { resource, namespace: 'ns', name }, ...over });
    const events = [
      e('patch', 'keystoneapis', 'keystone'), // finalizer
      e('create', 'jobs', 'db-create'),
      e('patch', 'secrets', 'config'),
      e('patch', 'secrets', 'config'), // a second write to the same object
      e('watch', 'secrets', 'osp-secret'),
      e('patch', 'keystoneapis', 'keystone', {
        objectRef: { resource: 'keystoneapis', subresource: 'status', namespace: 'ns', name: 'keystone' },
      }),
      e('create', 'events', ''),
      e('patch', 'deployments', 'other', { userAgent: 'kube-controller-manager/v1' }), // not the subject's
    ];
    const floor = requestFloor(events, subjectFilter(/^stackops\//), 'keystoneapis', 1);
    expect(floor.value).toBe(4);
    expect(floor.detail).toBe(
      '2 owned objects (first write of each) + 1 keystoneapis metadata (finalizer) + 1 watch by name (input) per instance; above the floor, 3 per instance: create events ×1, patch keystoneapis/status ×1, patch secrets ×1',
    );
  });
});

describe('the 200-instance baseline', () => {
  it("creates every object keystone-operator writes for one instance, the instance too, in the operator's stages", () => {
    const stages = workloads.keystone.controlPlaneStages?.('ns') ?? [];
    // The operator's floor run counts 15 owned objects per instance; the baseline adds the instance.
    expect(describeStages(stages)).toBe(
      '16 objects per instance in 4 stages: KeystoneAPI, Job; Secret ×3, ServiceAccount, Role, RoleBinding, Job; Service ×2, Job; Deployment, CronJob, ConfigMap, Secret',
    );
    expect(stages.flat().every((s) => s.object.metadata.namespace === 'ns')).toBe(true);
    expect([...new Set(stages.flat().map((s) => `${s.object.apiVersion} ${s.object.kind}`))].sort()).toEqual([
      'apps/v1 Deployment',
      'batch/v1 CronJob',
      'batch/v1 Job',
      'keystone.openstack.org/v1beta1 KeystoneAPI',
      'rbac.authorization.k8s.io/v1 Role',
      'rbac.authorization.k8s.io/v1 RoleBinding',
      'v1 ConfigMap',
      'v1 Secret',
      'v1 Service',
      'v1 ServiceAccount',
    ]);
  });
  it('creates the objects as the operator wrote them, less what the API server and the controllers fill in', () => {
    const job = asBaselineObject(
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: 'keystone-db-sync',
          namespace: 'bench',
          uid: 'u1',
          resourceVersion: '7',
          ownerReferences: [{ apiVersion: 'v1', kind: 'KeystoneAPI', name: 'keystone', uid: 'k' }],
          labels: { 'batch.kubernetes.io/job-name': 'keystone-db-sync', service: 'keystone' },
          managedFields: [],
        },
        spec: {
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
          template: {
            metadata: {
              labels: { 'controller-uid': 'u1', 'job-name': 'keystone-db-sync', service: 'keystone' },
            },
            spec: {
              serviceAccountName: 'keystone-keystone',
              containers: [
                { name: 'sync', env: [{ name: 'URL', value: 'http://keystone-internal.bench.svc' }] },
              ],
            },
          },
        },
        status: { succeeded: 1 },
      } as never,
      'bench',
      'baseline-7',
    ) as never as { metadata: Record<string, unknown>; spec: Record<string, never>; status?: unknown };
    expect(job.metadata).toEqual({
      name: 'keystone-db-sync',
      namespace: 'baseline-7',
      labels: { service: 'keystone' },
    });
    expect(job.status).toBeUndefined();
    expect(job.spec['selector']).toBeUndefined();
    expect(JSON.stringify(job.spec['template'])).toBe(
      JSON.stringify({
        metadata: { labels: { service: 'keystone' } },
        spec: {
          serviceAccountName: 'keystone-keystone',
          containers: [
            { name: 'sync', env: [{ name: 'URL', value: 'http://keystone-internal.baseline-7.svc' }] },
          ],
        },
      }),
    );
    const service = asBaselineObject(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'keystone-public', namespace: 'bench', labels: { 'stackops-bench': 'x' } },
        spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 5000 }] },
      } as never,
      'bench',
      'baseline-7',
    ) as never as { metadata: { labels: unknown }; spec: unknown };
    expect(service.spec).toEqual({ ports: [{ port: 5000 }] });
    // Only the namespace's name standing alone is rewritten, not a word that contains it.
    expect(service.metadata.labels).toEqual({ 'stackops-bench': 'x' });
  });

  it("says how many objects carry the operator's bodies", () => {
    const stages = workloads.keystone.controlPlaneStages?.('ns') ?? [];
    const first = stages[0]?.[1];
    if (!first) throw new Error('no stage');
    const one: OperatorBodies = {
      namespace: 'bench',
      objects: new Map([[bodyKey(first.kind, first.object.metadata.name ?? ''), first.object]]),
    };
    expect(describeBodies(stages, one)).toBe(
      '1 of 16 objects as the operator wrote them in the apply scenario, the rest placeholders',
    );
    expect(describeBodies(stages, undefined)).toBe('placeholder bodies (no operator run to read them from)');
  });
});

describe("the 200-instance floor: the control plane alone plus the operator's writes", () => {
  it('writes the status the operator left, its conditions known stage by stage, each write a change', () => {
    const left = {
      hash: { dbsync: 'abc' },
      conditions: ['Ready', 'DBReady', 'DBSyncReady', 'DeploymentReady'].map((type) => ({
        type,
        status: 'True',
        reason: 'Ready',
        message: `${type} done`,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      })),
    };
    const statusesOf = (done: number) =>
      (
        stageStatus(left, done, 4, new Date('2026-01-02T03:04:05.678Z'))['conditions'] as { status: string }[]
      ).map((c) => c.status);
    expect(statusesOf(-1)).toEqual(['Unknown', 'Unknown', 'Unknown', 'Unknown']);
    expect(statusesOf(1)).toEqual(['True', 'True', 'Unknown', 'Unknown']);
    expect(statusesOf(3)).toEqual(['True', 'True', 'True', 'True']);
    const last = stageStatus(left, 3, 4, new Date('2026-01-02T03:04:05.678Z'));
    expect(last['hash']).toEqual({ dbsync: 'abc' });
    expect((last['conditions'] as { lastTransitionTime: string }[])[0]?.lastTransitionTime).toBe(
      '2026-01-02T03:04:05Z',
    );
  });
});

describe("the floor run's watches", () => {
  it('keeps the cluster-wide watch-lists with their selectors and leaves the namespaced ones out', () => {
    expect(
      watchedKind(
        '/api/v1/secrets?allowWatchBookmarks=true&labelSelector=keystone.openstack.org%2Fuid&sendInitialEvents=true&watch=true',
      ),
    ).toEqual({
      kind: { group: '', version: 'v1', kind: 'secrets', plural: 'secrets', namespaced: true },
      labelSelector: 'keystone.openstack.org/uid',
    });
    expect(watchedKind('/apis/batch/v1/jobs?watch=true&fieldSelector=metadata.name%3Dx')).toEqual({
      kind: { group: 'batch', version: 'v1', kind: 'jobs', plural: 'jobs', namespaced: true },
      fieldSelector: 'metadata.name=x',
    });
    expect(watchedKind('/api/v1/namespaces?watch=true')?.kind.plural).toBe('namespaces');
    expect(watchedKind('/api/v1/namespaces/bench-3/secrets?fieldSelector=metadata.name%3Dosp-secret')).toBe(
      undefined,
    );
    expect(watchedKind('/apis/apps/v1/namespaces/bench-3/deployments?watch=true')).toBe(undefined);
  });
});

describe('figures', () => {
  it('reads utime + stime from /proc/<pid>/stat, also when the name has spaces and parentheses', () => {
    const stat = '1234 (node (main) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 11 0 100 0 0';
    expect(cpuSeconds(stat)).toBe(3.25);
  });

  it("counts this process's CPU to the nanosecond, in step with its clock ticks", () => {
    // 0.25 s of this process's CPU time, however long a loaded machine takes to give it.
    const start = process.cpuUsage();
    const spent = () => {
      const d = process.cpuUsage(start);
      return (d.user + d.system) / 1e6;
    };
    while (spent() < 0.25);
    const s = sample(process.pid);
    expect(s.cpuPrecise).toBeGreaterThan(0.2);
    expect(Math.abs(s.cpuPrecise - s.cpu)).toBeLessThan(0.2);
    expect(Number.isInteger(s.cpuPrecise * 100)).toBe(false);
  });

  it('median, min and max, ignoring runs without the figure', () => {
    expect(summarize([3, 1, 2, Number.NaN])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(summarize([4, 1, 2, 3])?.median).toBe(2.5);
    expect(summarize([Number.NaN])).toBeUndefined();
    expect([0.1234, 1.5, 12.34, 148.2].map(formatNumber)).toEqual(['0.123', '1.5', '12.3', '148']);
  });

  it('counts overlapping control-plane work once', () => {
    expect(
      unionLength([
        [0, 10],
        [5, 12],
        [20, 25],
        [30, 30],
      ]),
    ).toBe(17);
  });

  it("counts the API server's time to accept the instance as the control plane's, within the window", async () => {
    const clock = new ControlPlaneClock({} as KubeClient, []); // no kinds: nothing watched
    clock.imposed(1000, 3000);
    expect(clock.seconds(1000, 3300)).toBe(2);
    expect(clock.seconds(2000, 5000)).toBe(1);
    await clock.stop();
  });

  it("counts the API server's answers to the subject's writes only where no control-plane work ran", () => {
    const at = (ms: number) => new Date(performance.timeOrigin + ms).toISOString();
    const write = (id: string, from: number, to: number, over: Partial<AuditEvent> = {}) =>
      event({
        auditID: id,
        verb: 'patch',
        requestReceivedTimestamp: at(from),
        stageTimestamp: at(to),
        ...over,
      });
    const events = [
      write('finalizer', 1000, 1010),
      // two writes of one wave at once: counted once
      write('a', 1020, 1040),
      write('b', 1025, 1045),
      // half inside the control plane's work
      write('status', 1190, 1220),
      // not waited for, not the subject's, not a write
      write('event', 1050, 1090, { objectRef: { resource: 'events', namespace: 'ns', name: 'e' } }),
      write('kcm', 1050, 1090, { userAgent: 'kube-controller-manager/v1.34' }),
      write('get', 1050, 1090, { verb: 'get' }),
    ];
    const { seconds, writes } = writesOutsideControlPlane(
      events,
      subjectFilter(/^stackops\//),
      [[1050, 1200]],
      1000,
      1300,
    );
    expect(writes).toBe(4);
    // ISO times carry whole milliseconds: within 2 ms of 55 ms
    expect(Math.abs(seconds - 0.055)).toBeLessThan(0.002);
  });

  it('knows when the control plane is done with a Job, a Deployment and a DaemonSet', () => {
    const meta = { name: 'x', namespace: 'ns', generation: 2 };
    expect(controlPlaneDone({ kind: 'Job', metadata: meta, status: { succeeded: 1 } })).toBe(true);
    expect(controlPlaneDone({ kind: 'Job', metadata: meta, status: {} })).toBe(false);
    const deployment = (observedGeneration: number, available: number) => ({
      kind: 'Deployment',
      metadata: meta,
      spec: { replicas: 2 },
      status: { observedGeneration, updatedReplicas: 2, availableReplicas: available },
    });
    expect(controlPlaneDone(deployment(2, 2))).toBe(true);
    expect(controlPlaneDone(deployment(1, 2))).toBe(false);
    expect(controlPlaneDone(deployment(2, 1))).toBe(false);
    expect(
      controlPlaneDone({
        kind: 'DaemonSet',
        metadata: meta,
        status: { observedGeneration: 2, desiredNumberScheduled: 1, numberReady: 1 },
      }),
    ).toBe(true);
  });
});

describe('report', () => {
  const rows = (runs: Record<string, number>[], name = 'keystone-operator') =>
    summaryTable({
      name,
      runs: runs.map((r) => Object.fromEntries(Object.entries(r).map(([k, value]) => [k, { value }]))),
    });
  const row = (table: string[][], figure: string) => table.find((r) => r[1] === figure) ?? [];

  it('prints the floor after a missed target, and nothing after a met one', () => {
    const t = rows([
      {
        'idle: RSS (MiB)': 90,
        'floor: bare node RSS (MiB)': 48,
        '200: apply → all done (s)': 80,
        '200: control plane alone (s)': 70,
        'startup: spawn → ready (s)': 0.1,
        'floor: bare node spawn → ready (s)': 0.05,
      },
    ]);
    expect(row(t, 'idle: RSS (MiB)')[9]).toBe('MISSED (bare node 48)');
    expect(row(t, '200: apply → all done (s)')[9]).toBe('MISSED (control plane alone 70 s)');
    expect(row(t, 'startup: spawn → ready (s)')[9]).toBe('met');
    const slow = rows(
      [
        {
          'startup: spawn → ready (s)': 0.5,
          'floor: bare node spawn → ready (s)': 0.07,
          'floor: code loaded, spawn → exit (s)': 0.15,
        },
      ],
      'stackops-operators',
    );
    expect(row(slow, 'startup: spawn → ready (s)')[9]).toBe(
      'MISSED (bare node 0.07 s, its code loaded 0.15 s)',
    );
    // With its watch-lists answered: code loaded, then those (nothing goes out before the code loads).
    const synced = rows(
      [
        {
          'startup: spawn → ready (s)': 0.3,
          'restart: spawn → ready (s)': 0.35,
          'floor: code loaded, spawn → exit (s)': 0.15,
          'startup: watch-lists answered (s)': 0.06,
          'restart: watch-lists answered (s)': 0.08,
        },
      ],
      'stackops-operators',
    );
    expect(row(synced, 'startup: spawn → ready (s)')[9]).toBe(
      'MISSED (its code loaded 0.15 s, then its watch-lists answered 0.21 s)',
    );
    expect(row(synced, 'restart: spawn → ready (s)')[9]).toBe(
      'MISSED (its code loaded 0.15 s, then its watch-lists answered 0.23 s)',
    );
  });

  it('holds the four in one process to 80 MiB and 0.2 s, also under another runtime', () => {
    const run = { 'idle: RSS (MiB)': 75, 'startup: spawn → ready (s)': 0.5 };
    for (const name of ['stackops-operators', 'stackops-operators (bun 1.4.5)']) {
      const t = rows([run], name);
      expect(row(t, 'idle: RSS (MiB)').slice(8)).toEqual(['≤ 80', 'met']);
      expect(row(t, 'startup: spawn → ready (s)').slice(8)).toEqual(['≤ 0.2', 'MISSED']);
    }
    expect(row(rows([run]), 'idle: RSS (MiB)').slice(8)).toEqual(['≤ 60', 'MISSED']);
  });

  it("holds each operator to its own apply target, and the 200 instances to issue 33's", () => {
    const run = {
      'apply: ÷ control plane': 1.2,
      'apply: requests': 10,
      'apply: floor ÷ control plane': 1.05,
    };
    expect(row(rows([run], 'sip-operator'), 'apply: ÷ control plane').slice(8)).toEqual(['≤ 1.3', 'met']);
    expect(row(rows([run], 'keystone-operator'), 'apply: ÷ control plane').slice(8)).toEqual([
      '≤ 1.10',
      'MISSED (floor 1.05, round-trips 10)',
    ]);
    const idle = rows([{ 'idle: CPU s / 5 min': 0.107, 'idle: the watches alone, CPU s / 5 min': 0.094 }]);
    expect(row(idle, 'idle: CPU s / 5 min').slice(8)).toEqual(['≤ 0.1', 'MISSED (the watches alone 0.094)']);
    const slow = rows([{ '200: ÷ control plane alone': 2, '200: floor ÷ control plane alone': 1.6 }]);
    expect(row(slow, '200: ÷ control plane alone')[9]).toBe('MISSED (floor 1.6)');
    const withCpu = rows([
      {
        '200: ÷ control plane alone': 1.43,
        '200: floor ÷ control plane alone': 1.21,
        '200: own CPU ÷ cores ÷ control plane alone': 0.164,
        "200: client CPU beyond the floor run's ÷ cores ÷ control plane alone": 0.116,
        '200: cores busy': 1.98,
      },
    ]);
    expect(row(withCpu, '200: ÷ control plane alone')[9]).toBe(
      "MISSED (floor 1.21, + own CPU on the shared cores 0.164, client CPU beyond the floor run's 0.116, cores busy 1.98)",
    );
    const perInstance: [string, number][] = [
      ['200: ÷ control plane alone', 1.25],
      ['200: requests per instance', 27],
      ['200: floor of requests per instance', 18],
      ['200: cached instance, largest (KiB)', 9],
    ];
    const t = rows([Object.fromEntries(perInstance)]);
    expect(row(t, '200: ÷ control plane alone')[9]).toBe('met');
    expect(row(t, '200: requests per instance')[9]).toBe('MISSED (floor 18)');
    expect(row(t, '200: cached instance, largest (KiB)').slice(8)).toEqual(['≤ 100', 'met']);
  });

  it("puts the Go operator's median and ours ÷ Go beside each figure of the same workload", () => {
    const runs = (v: number) => [{ 'apply: requests': { value: v } }];
    const t = summaryTable({ name: 'keystone-operator', runs: runs(27), go: { name: 'go', runs: runs(54) } });
    expect(row(t, 'apply: requests').slice(2, 8)).toEqual(['27', '27', '27', '1', '54 (1)', '0.5']);
    expect(row(rows([{ 'apply: requests': 27 }]), 'apply: requests').slice(6, 8)).toEqual(['', '']);
  });

  it("judges peak RSS against the chart's memory limit", () => {
    const t = rows([{ 'maxima: peak RSS (MiB)': 300, 'chart: memory limit (MiB)': 256 }]);
    expect(row(t, 'maxima: peak RSS (MiB)').slice(8)).toEqual(['≤ limit 256', 'MISSED']);
    expect(row(rows([{ 'maxima: peak RSS (MiB)': 300 }]), 'maxima: peak RSS (MiB)')[9]).toBe('?');
  });
});

describe('charts', () => {
  it("reads every operator chart's memory limit and node flags", () => {
    for (const dir of operatorDirs) {
      expect(chartMemoryLimitMiB(dir)).toBeGreaterThan(0);
      expect(chartNodeOptions(dir)).toMatch(/--max-old-space-size=\d+/);
    }
  });
});

describe('starts (builds of one operator side by side)', () => {
  it('takes two or more bundle directories and refuses what it cannot run', () => {
    expect(parseStartsArgs(['--pairs', '4', '--instances', 'a', 'b'])).toEqual({
      operator: 'combined',
      pairs: 4,
      instances: true,
      bundles: ['a', 'b'],
    });
    expect(parseStartsArgs(['--operator', 'sip', 'a', 'b', 'c']).operator).toBe('sip');
    expect(() => parseStartsArgs(['a'])).toThrow(/usage: starts/);
    expect(() => parseStartsArgs(['--operator', 'nova', 'a', 'b'])).toThrow(/--operator: one of keystone/);
    expect(() => parseStartsArgs(['--pairs', '0', 'a', 'b'])).toThrow(/--pairs/);
    expect(() => parseStartsArgs(['--fast', 'a', 'b'])).toThrow(/unknown option --fast/);
  });

  it("prints each build's medians and the rounds in which it used the least CPU", () => {
    const text = summarizeStarts([
      { bundle: 'main', wallMs: [200, 260, 240], cpuMs: [150, 210, 200] },
      { bundle: 'change', wallMs: [190, 220, 250], cpuMs: [140, 170, 205] },
    ]);
    expect(text).toContain(
      'main: spawn → ready 240 ms, CPU to ready 200 ms (medians of 3; least CPU in 1 of 3 rounds)',
    );
    expect(text).toContain(
      'change: spawn → ready 220 ms, CPU to ready 170 ms (medians of 3; least CPU in 2 of 3 rounds)',
    );
  });
});
