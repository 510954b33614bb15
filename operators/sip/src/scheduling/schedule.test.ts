import { describe, expect, it } from 'vitest';
import type { NodeSet } from '../api/sipcluster.js';
import { claimLabels } from './claims.js';
import { applyLabelChange, labelChanges } from './label-changes.js';
import { type Host, type ScheduleRequest, type ScheduleResult, schedule } from './schedule.js';

const me = { namespace: 'tenant-a', name: 'cluster-a' };
const other = { namespace: 'tenant-b', name: 'cluster-b' };
const RACK = 'vino.airshipit.org/rack';
const SERVER = 'vino.airshipit.org/host';
const FLAVOR = 'vino.airshipit.org/flavor';

function bmh(name: string, labels: Record<string, string> = {}, namespace = 'metal3'): Host {
  return { namespace, name, labels };
}
const cp = (name: string, rack: string, extra: Record<string, string> = {}) =>
  bmh(name, { [FLAVOR]: 'control-plane', [RACK]: rack, [SERVER]: `srv-${name}`, ...extra });
const wk = (name: string, server: string, extra: Record<string, string> = {}) =>
  bmh(name, { [FLAVOR]: 'worker', [RACK]: 'r1', [SERVER]: server, ...extra });

function nodeSet(flavor: string, active: number, standby = 0, topologyKey?: string): NodeSet {
  return {
    labelSelector: { matchLabels: { [FLAVOR]: flavor } },
    ...(topologyKey ? { topologyKey } : {}),
    count: { active, standby },
  };
}

const names = (hs: readonly Host[]) => hs.map((h) => h.name);
function ok(result: ScheduleResult) {
  if (!result.ok) throw new Error(`expected a schedule, got: ${result.message}`);
  return result;
}
function failed(result: ScheduleResult) {
  if (result.ok) throw new Error('expected the schedule to fail');
  return result;
}
const roleHosts = (result: ScheduleResult, role: string) =>
  names(ok(result).roles.find((r) => r.role === role)!.hosts);

/** The hosts as they are after the reconciler wrote the schedule's labels. */
function applied(req: ScheduleRequest, result: ScheduleResult): Host[] {
  const r = ok(result);
  const changes = new Map(labelChanges(req.cluster, r.roles, r.released).map((c) => [c.host.name, c.set]));
  return req.hosts.map((h) =>
    changes.has(h.name) ? { ...h, labels: applyLabelChange(h.labels, changes.get(h.name)) } : h,
  );
}

describe('schedule: topology spreading within a role', () => {
  it.each([
    {
      name: 'per rack: one host per rack, by name',
      hosts: [cp('a', 'r1'), cp('b', 'r1'), cp('c', 'r1'), cp('d', 'r2'), cp('e', 'r2'), cp('f', 'r3')],
      set: nodeSet('control-plane', 3, 0, RACK),
      want: ['a', 'd', 'f'],
    },
    {
      name: 'per host: two BMHs (VMs) on one server never both',
      hosts: [wk('vm1', 'srv1'), wk('vm2', 'srv1'), wk('vm3', 'srv2'), wk('vm4', 'srv3')],
      set: nodeSet('worker', 2, 1, SERVER),
      want: ['vm1', 'vm3', 'vm4'],
    },
    {
      name: 'no topologyKey: any matching hosts',
      hosts: [cp('a', 'r1'), cp('b', 'r1'), cp('c', 'r1')],
      set: nodeSet('control-plane', 2),
      want: ['a', 'b'],
    },
    {
      name: 'hosts without the topology label are unconstrained',
      hosts: [
        cp('a', 'r1'),
        bmh('n1', { [FLAVOR]: 'control-plane' }),
        bmh('n2', { [FLAVOR]: 'control-plane' }),
      ],
      set: nodeSet('control-plane', 3, 0, RACK),
      want: ['a', 'n1', 'n2'],
    },
    {
      name: 'hosts not matching the selector are ignored',
      hosts: [wk('w1', 's1'), cp('a', 'r1'), cp('b', 'r2')],
      set: nodeSet('control-plane', 2, 0, RACK),
      want: ['a', 'b'],
    },
  ])('$name', ({ hosts, set, want }) => {
    const role = set.labelSelector?.matchLabels?.[FLAVOR] === 'worker' ? 'Worker' : 'ControlPlane';
    const result = schedule({ cluster: me, nodes: { [role]: set }, hosts });
    expect(roleHosts(result, role)).toEqual(want);
  });

  it('anti-affinity applies within a role, not across roles', () => {
    const hosts = [
      cp('a', 'r1'),
      cp('b', 'r2'),
      bmh('w1', { [FLAVOR]: 'worker', [RACK]: 'r1' }),
      bmh('w2', { [FLAVOR]: 'worker', [RACK]: 'r2' }),
    ];
    const result = schedule({
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 2, 0, RACK), Worker: nodeSet('worker', 2, 0, RACK) },
      hosts,
    });
    expect(roleHosts(result, 'ControlPlane')).toEqual(['a', 'b']);
    expect(roleHosts(result, 'Worker')).toEqual(['w1', 'w2']);
  });

  it('matchExpressions select as Kubernetes does', () => {
    const hosts = [
      bmh('a', { tier: 'gold' }),
      bmh('b', { tier: 'silver' }),
      bmh('c', { tier: 'gold', broken: 'yes' }),
      bmh('d', {}),
    ];
    const result = schedule({
      cluster: me,
      nodes: {
        Worker: {
          labelSelector: {
            matchExpressions: [
              { key: 'tier', operator: 'In', values: ['gold', 'silver'] },
              { key: 'broken', operator: 'DoesNotExist' },
            ],
          },
          count: { active: 2, standby: 0 },
        },
      },
      hosts,
    });
    expect(roleHosts(result, 'Worker')).toEqual(['a', 'b']);
  });
});

describe('schedule: counts', () => {
  it('takes active + standby hosts', () => {
    const hosts = [cp('a', 'r1'), cp('b', 'r2'), cp('c', 'r3'), cp('d', 'r4')];
    const result = schedule({
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 1, 2, RACK) },
      hosts,
    });
    expect(roleHosts(result, 'ControlPlane')).toEqual(['a', 'b', 'c']);
    expect(ok(result).roles[0]!.requested).toBe(3);
  });

  it('fails with how many hosts are missing, for which role and constraint', () => {
    const hosts = [cp('a', 'r1'), cp('b', 'r1'), cp('c', 'r2')];
    const result = failed(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 2, 1, RACK) }, hosts }),
    );
    expect(result.shortfalls).toEqual([
      expect.objectContaining({ role: 'ControlPlane', missing: 1, requested: 3 }),
    ]);
    expect(result.message).toContain('ControlPlane: 1 of 3 hosts missing (active 2 + standby 1)');
    expect(result.message).toContain(
      `labelSelector ${FLAVOR}=control-plane and at most one host per ${RACK}`,
    );
    expect(result.message).toContain(`1 shares a ${RACK} with a chosen host`);
  });

  it('reports every role that falls short, and schedules none of them', () => {
    const result = failed(
      schedule({
        cluster: me,
        nodes: { ControlPlane: nodeSet('control-plane', 1), Worker: nodeSet('worker', 2) },
        hosts: [wk('w1', 's1')],
      }),
    );
    expect(result.shortfalls.map((s) => [s.role, s.missing])).toEqual([
      ['ControlPlane', 1],
      ['Worker', 1],
    ]);
    expect(result.message).toMatch(/^ControlPlane: 1 of 1 hosts missing .*; Worker: 1 of 2 hosts missing/);
  });

  it('a role with count 0 takes nothing', () => {
    const result = schedule({
      cluster: me,
      nodes: { Worker: nodeSet('worker', 0) },
      hosts: [wk('w1', 's1')],
    });
    expect(roleHosts(result, 'Worker')).toEqual([]);
  });
});

describe('schedule: hosts held by other clusters', () => {
  it('never takes a host another SIPCluster holds', () => {
    const hosts = [
      cp('a', 'r1', claimLabels(other, 'ControlPlane')),
      cp('b', 'r2'),
      cp('c', 'r3', claimLabels(other, 'Worker')),
      cp('d', 'r4'),
    ];
    const result = schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 2) }, hosts });
    expect(roleHosts(result, 'ControlPlane')).toEqual(['b', 'd']);
  });

  it('a cluster of the same name in another namespace is another cluster', () => {
    const hosts = [cp('a', 'r1', claimLabels({ namespace: 'elsewhere', name: me.name }, 'ControlPlane'))];
    const result = failed(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 1) }, hosts }),
    );
    expect(result.message).toContain('1 held by other SIPClusters');
  });

  it('any cluster-name label, even empty, makes a host taken', () => {
    const hosts = [cp('a', 'r1', { 'sip.airshipit.org/cluster-name': '' })];
    const result = failed(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 1) }, hosts }),
    );
    expect(result.shortfalls[0]!.missing).toBe(1);
  });
});

describe('schedule: idempotence, scale up and down', () => {
  const hosts = [cp('a', 'r1'), cp('b', 'r2'), cp('c', 'r3'), cp('d', 'r4'), cp('e', 'r5')];

  it('a second run over the labelled hosts keeps them and takes nothing more', () => {
    const req: ScheduleRequest = {
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 2, 1, RACK) },
      hosts,
    };
    const first = schedule(req);
    const again = ok(schedule({ ...req, hosts: applied(req, first) }));
    expect(names(again.roles[0]!.kept)).toEqual(['a', 'b', 'c']);
    expect(again.roles[0]!.added).toEqual([]);
    expect(again.released).toEqual([]);
    expect(labelChanges(me, again.roles, again.released)).toEqual([]);
  });

  it('held hosts count first even when other free hosts sort before them', () => {
    const held = hosts.map((h) =>
      h.name === 'd' || h.name === 'e'
        ? { ...h, labels: { ...h.labels, ...claimLabels(me, 'ControlPlane') } }
        : h,
    );
    const result = ok(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 2) }, hosts: held }),
    );
    expect(names(result.roles[0]!.hosts)).toEqual(['d', 'e']);
    expect(result.roles[0]!.added).toEqual([]);
  });

  it('a fully scheduled cluster stays scheduled when no host at all is free (upstream failed here)', () => {
    const req: ScheduleRequest = {
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 3) },
      hosts: hosts.slice(0, 3),
    };
    const again = ok(schedule({ ...req, hosts: applied(req, schedule(req)) }));
    expect(names(again.roles[0]!.kept)).toEqual(['a', 'b', 'c']);
  });

  it('scale up keeps the held hosts and adds the missing ones', () => {
    const req: ScheduleRequest = { cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 2) }, hosts };
    const labelled = applied(req, schedule(req));
    const up = ok(
      schedule({ ...req, nodes: { ControlPlane: nodeSet('control-plane', 3, 1) }, hosts: labelled }),
    );
    expect(names(up.roles[0]!.kept)).toEqual(['a', 'b']);
    expect(names(up.roles[0]!.added)).toEqual(['c', 'd']);
  });

  it('scale down releases the surplus hosts (the last by name) and keeps the rest', () => {
    const req: ScheduleRequest = { cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 4) }, hosts };
    const labelled = applied(req, schedule(req));
    const down = ok(
      schedule({ ...req, nodes: { ControlPlane: nodeSet('control-plane', 1, 1) }, hosts: labelled }),
    );
    expect(names(down.roles[0]!.hosts)).toEqual(['a', 'b']);
    expect(names(down.released)).toEqual(['c', 'd']);
    const changes = labelChanges(me, down.roles, down.released);
    expect(changes.map((c) => [c.host.name, c.set])).toEqual([
      ['c', undefined],
      ['d', undefined],
    ]);
    const after = applied({ ...req, hosts: labelled }, down);
    expect(after.find((h) => h.name === 'c')!.labels).toEqual(hosts.find((h) => h.name === 'c')!.labels);
  });

  it('a role removed from the spec releases its hosts', () => {
    const req: ScheduleRequest = {
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 1), Worker: nodeSet('worker', 1) },
      hosts: [...hosts, wk('w1', 's1')],
    };
    const labelled = applied(req, schedule(req));
    const result = ok(
      schedule({ ...req, nodes: { ControlPlane: nodeSet('control-plane', 1) }, hosts: labelled }),
    );
    expect(names(result.released)).toEqual(['w1']);
  });

  it('a held host that no longer matches the selector is replaced', () => {
    const req: ScheduleRequest = { cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 1) }, hosts };
    const labelled = applied(req, schedule(req)).map((h) =>
      h.name === 'a' ? { ...h, labels: { ...h.labels, [FLAVOR]: 'retired' } } : h,
    );
    const result = ok(schedule({ ...req, hosts: labelled }));
    expect(names(result.roles[0]!.added)).toEqual(['b']);
    expect(names(result.released)).toEqual(['a']);
  });

  it('a failed schedule releases nothing', () => {
    const req: ScheduleRequest = { cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 3) }, hosts };
    const labelled = applied(req, schedule(req));
    const result = schedule({
      ...req,
      nodes: { ControlPlane: nodeSet('control-plane', 1), Worker: nodeSet('worker', 1) },
      hosts: labelled,
    });
    expect(result.ok).toBe(false);
    expect('released' in result).toBe(false);
  });
});

describe('schedule: determinism', () => {
  const hosts = [
    cp('c3', 'r3'),
    cp('a1', 'r1'),
    cp('b2', 'r2'),
    cp('a2', 'r1'),
    wk('w3', 's2'),
    wk('w1', 's1'),
    wk('w2', 's1'),
    bmh('a1', { [FLAVOR]: 'worker', [SERVER]: 's9' }, 'other-ns'),
  ];
  const nodes = {
    Worker: nodeSet('worker', 2, 0, SERVER),
    ControlPlane: nodeSet('control-plane', 2, 1, RACK),
  };

  it('gives the same hosts whatever order they are listed in', () => {
    const expected = schedule({ cluster: me, nodes, hosts });
    for (let i = 0; i < 20; i++) {
      const shuffled = [...hosts].sort(() => Math.random() - 0.5);
      expect(schedule({ cluster: me, nodes, hosts: shuffled })).toEqual(expected);
    }
    expect(roleHosts(expected, 'ControlPlane')).toEqual(['a1', 'b2', 'c3']);
    expect(ok(expected).roles.find((r) => r.role === 'ControlPlane')!.hosts[0]!.namespace).toBe('metal3');
    expect(roleHosts(expected, 'Worker')).toEqual(['a1', 'w1']);
  });

  it('schedules ControlPlane before Worker when their selectors overlap', () => {
    const any = (active: number): NodeSet => ({ count: { active, standby: 0 } });
    const result = schedule({
      cluster: me,
      nodes: { Worker: any(2), ControlPlane: any(1) },
      hosts: [bmh('x'), bmh('y'), bmh('z')],
    });
    expect(roleHosts(result, 'ControlPlane')).toEqual(['x']);
    expect(roleHosts(result, 'Worker')).toEqual(['y', 'z']);
  });
});

describe('schedule: unusable hosts', () => {
  const hosts = [cp('a', 'r1'), cp('b', 'r2'), cp('c', 'r3')];
  const problemOf = (h: Host) =>
    h.name === 'a' ? 'networkData Secret metal3/a-nd has no network oam-ipv4' : undefined;

  it('skips a free host that cannot serve the role and takes the next one', () => {
    const result = schedule({
      cluster: me,
      nodes: { ControlPlane: nodeSet('control-plane', 2) },
      hosts,
      problemOf,
    });
    expect(roleHosts(result, 'ControlPlane')).toEqual(['b', 'c']);
  });

  it('names the unusable host and its problem when it is needed', () => {
    const result = failed(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 3) }, hosts, problemOf }),
    );
    expect(result.message).toContain(
      'unusable: metal3/a (networkData Secret metal3/a-nd has no network oam-ipv4)',
    );
  });

  it('never swaps out a host the cluster already holds', () => {
    const held = hosts.map((h) =>
      h.name === 'a' ? { ...h, labels: { ...h.labels, ...claimLabels(me, 'ControlPlane') } } : h,
    );
    const result = ok(
      schedule({ cluster: me, nodes: { ControlPlane: nodeSet('control-plane', 1) }, hosts: held, problemOf }),
    );
    expect(names(result.roles[0]!.kept)).toEqual(['a']);
  });
});
