import { describe, expect, it } from 'vitest';
import { ConditionType, Reason, Severity } from './catalog.js';
import type { Condition } from './condition.js';
import { Conditions } from './conditions.js';

/** A clock the test moves by hand. */
function clock(start = '2024-05-01T10:00:00.700Z') {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    tick: (seconds: number) => {
      t += seconds * 1000;
    },
  };
}

const at = (iso: string) => ({ now: () => new Date(iso) });

describe('Conditions.set', () => {
  it('stamps new conditions with now, truncated to whole seconds in UTC', () => {
    const conds = new Conditions([], at('2024-05-01T10:00:00.999Z')).markTrue('A', 'ok');
    expect(conds.get('A')?.lastTransitionTime).toBe('2024-05-01T10:00:00Z');
  });

  it.each<[string, Partial<Condition>, boolean]>([
    ['same state', {}, true],
    ['different status', { status: 'False', severity: 'Info' }, false],
    ['different reason', { reason: 'Other' }, false],
    ['different severity', { severity: 'Warning' }, false],
    ['different message', { message: 'changed' }, false],
  ])('%s → time kept: %s', (_name, change, kept) => {
    const c = clock();
    const conds = new Conditions([], c).markUnknown('A', Reason.Init, 'waiting');
    const before = conds.get('A')!.lastTransitionTime;
    c.tick(5);
    conds.set({ type: 'A', status: 'Unknown', reason: Reason.Init, message: 'waiting', ...change });
    expect(conds.get('A')!.lastTransitionTime === before).toBe(kept);
  });

  it('uses the time given with the condition', () => {
    const conds = new Conditions().set({
      type: 'A',
      status: 'True',
      lastTransitionTime: '2020-01-01T00:00:00Z',
    });
    expect(conds.get('A')?.lastTransitionTime).toBe('2020-01-01T00:00:00Z');
  });

  it('ignores undefined', () => {
    expect(new Conditions().set(undefined).size).toBe(0);
  });

  it('keeps Ready first and the rest sorted by type whatever the insertion order', () => {
    const conds = new Conditions()
      .markTrue('Zeta')
      .markTrue('alpha')
      .markTrue(ConditionType.Ready)
      .markTrue('Beta')
      .markTrue('ReadyX');
    expect(conds.list().map((c) => c.type)).toEqual(['Ready', 'Beta', 'ReadyX', 'Zeta', 'alpha']);
  });
});

describe('Conditions.init', () => {
  it('drops stale types, sets Ready Unknown/Requested and the listed types Unknown/Init with catalog messages', () => {
    const conds = new Conditions([], at('2024-05-01T10:00:00Z')).markTrue('ExposeServiceReady');
    conds.init([ConditionType.InputReady, ConditionType.DBSyncReady, 'OperatorSpecific']);
    expect(conds.list()).toEqual([
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'Requested',
        message: 'Setup started',
        lastTransitionTime: '2024-05-01T10:00:00Z',
      },
      {
        type: 'DBSyncReady',
        status: 'Unknown',
        reason: 'Init',
        message: 'DBsync not started',
        lastTransitionTime: '2024-05-01T10:00:00Z',
      },
      {
        type: 'InputReady',
        status: 'Unknown',
        reason: 'Init',
        message: 'Input data not checked',
        lastTransitionTime: '2024-05-01T10:00:00Z',
      },
      {
        type: 'OperatorSpecific',
        status: 'Unknown',
        reason: 'Init',
        lastTransitionTime: '2024-05-01T10:00:00Z',
      },
    ]);
  });

  it('accepts full conditions, including one for Ready', () => {
    const conds = new Conditions().init([
      { type: 'Ready', status: 'Unknown', reason: Reason.Init, message: 'x' },
    ]);
    expect(conds.get('Ready')).toMatchObject({ reason: 'Init', message: 'x' });
  });
});

describe('mark helpers', () => {
  it.each<[string, (c: Conditions) => Conditions, Partial<Condition>]>([
    [
      'markTrue default message',
      (c) => c.markTrue('DBSyncReady'),
      { status: 'True', reason: 'Ready', message: 'DBsync completed' },
    ],
    ['markTrue formats', (c) => c.markTrue('X', 'made %s', 'it'), { status: 'True', message: 'made it' }],
    [
      'markFalse',
      (c) => c.markFalse('X', Reason.Error, Severity.Warning, 'failed: %s', 'why'),
      { status: 'False', reason: 'Error', severity: 'Warning', message: 'failed: why' },
    ],
    [
      'markUnknown default message',
      (c) => c.markUnknown('CronJobReady', Reason.Init),
      { status: 'Unknown', reason: 'Init', message: 'CronJob not started' },
    ],
    [
      'markRequested uses the running message',
      (c) => c.markRequested('DeploymentReady'),
      { status: 'False', reason: 'Requested', severity: 'Info', message: 'Deployment in progress' },
    ],
    [
      'markRequested falls back to the waiting message',
      (c) => c.markRequested('InputReady'),
      { status: 'False', reason: 'Requested', severity: 'Info', message: 'Input data resources missing' },
    ],
    [
      'markError fills the catalog error format',
      (c) => c.markError('DBSyncReady', new Error('Job Attempt #1 Failed. Check job logs')),
      {
        status: 'False',
        reason: 'Error',
        severity: 'Warning',
        message: 'DBsync job error occurred Job Attempt #1 Failed. Check job logs',
      },
    ],
    [
      'markError on an unknown type uses the detail',
      (c) => c.markError('Other', 'plain'),
      { message: 'plain' },
    ],
  ])('%s', (_name, act, expected) => {
    const conds = act(new Conditions());
    const type = conds.list()[0]!.type;
    expect(conds.get(type)).toMatchObject(expected);
  });
});

describe('queries', () => {
  const conds = new Conditions()
    .markTrue('T')
    .markFalse('F', Reason.Requested, Severity.Info, 'waiting')
    .markFalse('E', Reason.Error, Severity.Warning, 'x')
    .markFalse('B', Reason.BackoffLimitExceeded, Severity.Error, 'x')
    .markUnknown('U', Reason.Init);

  it.each([
    ['T', true, false, false, false, true],
    ['F', false, true, false, false, true],
    ['E', false, true, false, true, true],
    ['B', false, true, false, true, true],
    ['U', false, false, true, false, true],
    ['absent', false, false, true, false, false],
  ])('%s: isTrue=%s isFalse=%s isUnknown=%s isError=%s has=%s', (type, t, f, u, e, h) => {
    expect(conds.isTrue(type)).toBe(t);
    expect(conds.isFalse(type)).toBe(f);
    expect(conds.isUnknown(type)).toBe(u);
    expect(conds.isError(type)).toBe(e);
    expect(conds.has(type)).toBe(h);
  });

  it('get returns a copy', () => {
    const got = conds.get('T')!;
    got.message = 'mutated';
    expect(conds.get('T')?.message).not.toBe('mutated');
  });

  it.each<[string, (c: Conditions) => Conditions, boolean]>([
    ['empty', (c) => c, true],
    ['only Ready, not True', (c) => c.markUnknown('Ready', Reason.Init), true],
    ['all True', (c) => c.markTrue('A').markTrue('B'), true],
    [
      'all True, Ready False',
      (c) => c.markTrue('A').markFalse('Ready', Reason.Error, Severity.Error, 'x'),
      true,
    ],
    ['one Unknown', (c) => c.markTrue('A').markUnknown('B', Reason.Init), false],
    ['one False', (c) => c.markTrue('A').markFalse('B', Reason.Requested, Severity.Info, 'x'), false],
  ])('allSubConditionsTrue: %s → %s', (_name, build, expected) => {
    expect(build(new Conditions()).allSubConditionsTrue()).toBe(expected);
  });

  it('remove and reset', () => {
    const c = new Conditions().markTrue('A').markTrue('B').remove('A');
    expect(c.list().map((x) => x.type)).toEqual(['B']);
    expect(c.reset().size).toBe(0);
  });
});

describe('computeReady', () => {
  const T1 = '2024-05-01T10:00:01Z';
  const T2 = '2024-05-01T10:00:02Z';

  it.each<[string, Condition[], Partial<Condition>]>([
    ['no sub-conditions → True', [], { status: 'True', reason: 'Ready', message: 'Setup complete' }],
    [
      'all True → True "Setup complete"',
      [{ type: 'A', status: 'True', reason: 'Ready', lastTransitionTime: T1 }],
      { status: 'True', reason: 'Ready', message: 'Setup complete' },
    ],
    [
      'the most severe False is copied, time included',
      [
        {
          type: 'A',
          status: 'False',
          severity: 'Info',
          reason: 'Requested',
          message: 'a',
          lastTransitionTime: T2,
        },
        {
          type: 'B',
          status: 'False',
          severity: 'Warning',
          reason: 'Error',
          message: 'b',
          lastTransitionTime: T1,
        },
        { type: 'C', status: 'Unknown', reason: 'Init', message: 'c', lastTransitionTime: T2 },
      ],
      { status: 'False', severity: 'Warning', reason: 'Error', message: 'b', lastTransitionTime: T1 },
    ],
    [
      'tie (same group, same second) → lowest type name, Ready never copies itself',
      [
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'Requested',
          message: 'Setup started',
          lastTransitionTime: T2,
        },
        { type: 'ZReady', status: 'Unknown', reason: 'Init', message: 'z', lastTransitionTime: T1 },
        { type: 'DBReady', status: 'Unknown', reason: 'Init', message: 'db', lastTransitionTime: T1 },
      ],
      { status: 'Unknown', reason: 'Init', message: 'db', lastTransitionTime: T1 },
    ],
    [
      'same group, different seconds → the latest',
      [
        { type: 'A', status: 'Unknown', reason: 'Init', message: 'a', lastTransitionTime: T1 },
        { type: 'B', status: 'Unknown', reason: 'Init', message: 'b', lastTransitionTime: T2 },
      ],
      { message: 'b' },
    ],
  ])('%s', (_name, initial, expected) => {
    const ready = new Conditions(initial).computeReady().get('Ready');
    expect(ready).toMatchObject({ type: 'Ready', ...expected });
  });

  it('does not depend on Ready previous value', () => {
    const subs: Condition[] = [
      {
        type: 'A',
        status: 'False',
        severity: 'Info',
        reason: 'Requested',
        message: 'a',
        lastTransitionTime: T1,
      },
    ];
    const fromTrue = new Conditions([
      ...subs,
      { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: T2 },
    ]).computeReady();
    const fromNothing = new Conditions(subs).computeReady();
    expect(fromTrue.toJSON()).toEqual(fromNothing.toJSON());
  });
});

describe('restoreLastTransitionTimes', () => {
  const OLD = '2024-01-01T00:00:00Z';

  it.each<[string, Condition | undefined, boolean]>([
    [
      'unchanged → previous time',
      { type: 'A', status: 'True', reason: 'Ready', message: 'ok', lastTransitionTime: OLD },
      true,
    ],
    [
      'status changed → new time',
      { type: 'A', status: 'Unknown', reason: 'Ready', message: 'ok', lastTransitionTime: OLD },
      false,
    ],
    [
      'message changed → new time',
      { type: 'A', status: 'True', reason: 'Ready', message: 'old', lastTransitionTime: OLD },
      false,
    ],
    ['not there before → new time', undefined, false],
  ])('%s', (_name, prev, restored) => {
    const conds = new Conditions([], at('2024-05-01T10:00:00Z')).markTrue('A', 'ok');
    conds.restoreLastTransitionTimes(prev ? [prev] : []);
    expect(conds.get('A')?.lastTransitionTime).toBe(restored ? OLD : '2024-05-01T10:00:00Z');
  });

  it('accepts undefined and another Conditions', () => {
    const prev = new Conditions([], at('2020-01-01T00:00:00Z')).markTrue('A');
    const now = new Conditions([], at('2024-01-01T00:00:00Z')).markTrue('A');
    expect(now.restoreLastTransitionTimes(undefined).get('A')?.lastTransitionTime).toBe(
      '2024-01-01T00:00:00Z',
    );
    expect(now.restoreLastTransitionTimes(prev).get('A')?.lastTransitionTime).toBe('2020-01-01T00:00:00Z');
  });
});

describe('a reconcile loop', () => {
  /** What a controller does each reconcile: init, mark, compute Ready, restore times from the old status. */
  function reconcile(saved: Condition[], c: ReturnType<typeof clock>, dbDone: boolean): Condition[] {
    const conds = new Conditions([], c).init([ConditionType.InputReady, ConditionType.DBSyncReady]);
    conds.markTrue(ConditionType.InputReady);
    if (dbDone) conds.markTrue(ConditionType.DBSyncReady);
    else conds.markRequested(ConditionType.DBSyncReady);
    return conds.computeReady().restoreLastTransitionTimes(saved).toJSON();
  }

  it('produces byte-identical status when nothing changed, and moves only what changed', () => {
    const c = clock();
    const first = reconcile([], c, false);
    c.tick(30);
    const second = reconcile(first, c, false);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(second.find((x) => x.type === 'Ready')).toMatchObject({
      status: 'False',
      message: 'DBsync job still running',
    });

    c.tick(30);
    const third = reconcile(second, c, true);
    const byType = (l: Condition[], t: string) => l.find((x) => x.type === t)!;
    expect(byType(third, 'InputReady').lastTransitionTime).toBe(
      byType(first, 'InputReady').lastTransitionTime,
    );
    expect(byType(third, 'DBSyncReady').lastTransitionTime).toBe('2024-05-01T10:01:00Z');
    expect(byType(third, 'Ready')).toMatchObject({ status: 'True', message: 'Setup complete' });
  });
});

describe('serialization', () => {
  it('leaves out empty optional fields and uses a fixed key order', () => {
    const json = new Conditions([], at('2024-05-01T10:00:00Z'))
      .markFalse('B', Reason.Error, Severity.Error, 'bad')
      .markTrue('A', '')
      .toJSON();
    expect(JSON.stringify(json)).toBe(
      '[{"type":"A","status":"True","reason":"Ready","lastTransitionTime":"2024-05-01T10:00:00Z"},' +
        '{"type":"B","status":"False","severity":"Error","reason":"Error","message":"bad","lastTransitionTime":"2024-05-01T10:00:00Z"}]',
    );
  });

  it('round-trips through from(), tolerating junk entries', () => {
    const original = new Conditions([], at('2024-05-01T10:00:00Z')).markTrue('A').markRequested('B').toJSON();
    const parsed = Conditions.from([
      ...original,
      null,
      42,
      { status: 'True' },
      { type: 'C', status: 'Maybe', severity: 'Bad' },
    ]);
    expect(parsed.toJSON().slice(0, 2)).toEqual(original);
    expect(parsed.get('C')).toEqual({ type: 'C', status: 'Unknown', lastTransitionTime: '' });
    expect(Conditions.from(undefined).size).toBe(0);
  });

  it('is iterable', () => {
    expect([...new Conditions().markTrue('A')].map((c) => c.type)).toEqual(['A']);
  });
});
