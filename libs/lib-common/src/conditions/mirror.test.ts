import { describe, expect, it } from 'vitest';
import type { Condition } from './condition.js';
import { compareByPriority, higherPriority, mirrorConditions, priorityGroup } from './mirror.js';

const T1 = '2024-01-01T00:00:01Z';
const T2 = '2024-01-01T00:00:02Z';
const T3 = '2024-01-01T00:00:03Z';

const c = (
  type: string,
  status: Condition['status'],
  severity: Condition['severity'] = '',
  time = T1,
  message = `${type} msg`,
  reason = 'R',
): Condition => ({ type, status, severity, reason, message, lastTransitionTime: time });

describe('priorityGroup', () => {
  it.each([
    [c('A', 'False', 'Error'), 0],
    [c('A', 'False', 'Warning'), 1],
    [c('A', 'False', 'Info'), 2],
    [c('A', 'False', ''), 3],
    [c('A', 'Unknown'), 4],
    [c('A', 'True'), 5],
  ])('%j → %i', (cond, group) => {
    expect(priorityGroup(cond)).toBe(group);
  });
});

describe('higherPriority / compareByPriority', () => {
  it.each([
    ['Error beats Warning even if older', c('A', 'False', 'Error', T1), c('B', 'False', 'Warning', T3), 'A'],
    ['Warning beats Info', c('A', 'False', 'Info', T3), c('B', 'False', 'Warning', T1), 'B'],
    ['Info beats a False without severity', c('A', 'False', '', T3), c('B', 'False', 'Info', T1), 'B'],
    ['any False beats Unknown', c('A', 'Unknown', '', T3), c('B', 'False', '', T1), 'B'],
    ['Unknown beats True', c('A', 'True', '', T3), c('B', 'Unknown', '', T1), 'B'],
    ['same group: later time wins', c('A', 'Unknown', '', T1), c('B', 'Unknown', '', T2), 'B'],
    [
      'same group and time: a non-Ready beats Ready',
      c('Ready', 'Unknown', '', T2),
      c('Z', 'Unknown', '', T2),
      'Z',
    ],
    ['same group and time: lower type name wins', c('B', 'Unknown', '', T2), c('A', 'Unknown', '', T2), 'A'],
    [
      'an unparseable time loses to a real one',
      c('A', 'Unknown', '', 'garbage'),
      c('B', 'Unknown', '', T1),
      'B',
    ],
  ])('%s', (_name, a, b, winner) => {
    expect(higherPriority(a, b).type).toBe(winner);
    expect(higherPriority(b, a).type).toBe(winner);
    expect(Math.sign(compareByPriority(a, b))).toBe(-Math.sign(compareByPriority(b, a)));
  });
});

describe('mirrorConditions', () => {
  it('returns undefined for an empty list', () => {
    expect(mirrorConditions([], 'X')).toBeUndefined();
  });

  it.each<[string, Condition[], Partial<Condition>]>([
    [
      'Ready True wins over everything, with its message and time',
      [c('Ready', 'True', '', T2, 'Setup complete'), c('DBReady', 'False', 'Error', T3)],
      { status: 'True', reason: 'Ready', message: 'Setup complete', lastTransitionTime: T2 },
    ],
    [
      'otherwise the most severe False is copied',
      [
        c('Ready', 'False', 'Warning', T1, 'ready copy'),
        c('DBReady', 'False', 'Error', T1, 'db broke', 'Error'),
        c('InputReady', 'True', '', T3),
      ],
      { status: 'False', severity: 'Error', reason: 'Error', message: 'db broke', lastTransitionTime: T1 },
    ],
    [
      'among Unknowns the latest one is copied',
      [c('A', 'Unknown', '', T3, 'a later'), c('B', 'Unknown', '', T1, 'b earlier')],
      { status: 'Unknown', message: 'a later', lastTransitionTime: T3 },
    ],
    [
      'a True that is not Ready is copied when nothing else exists',
      [c('A', 'True', '', T1, 'fine')],
      { status: 'True', message: 'fine' },
    ],
    [
      'Unknown Ready and Unknown sub-condition stamped together: the sub-condition wins',
      [
        c('Ready', 'Unknown', '', T1, 'Setup started'),
        c('DBReady', 'Unknown', '', T1, 'DB create not started'),
      ],
      { status: 'Unknown', message: 'DB create not started' },
    ],
  ])('%s', (_name, list, expected) => {
    const m = mirrorConditions(list, 'Target');
    expect(m).toMatchObject({ type: 'Target', ...expected });
  });

  it('does not depend on the input order', () => {
    const list = [
      c('C', 'Unknown', '', T2, 'c'),
      c('A', 'Unknown', '', T2, 'a'),
      c('Ready', 'Unknown', '', T2, 'r'),
      c('B', 'Unknown', '', T2, 'b'),
    ];
    const results = new Set(
      [list, [...list].reverse(), [list[2]!, list[0]!, list[3]!, list[1]!]].map(
        (l) => mirrorConditions(l, 'X')?.message,
      ),
    );
    expect([...results]).toEqual(['a']);
  });

  it('omits empty severity in the result', () => {
    expect(mirrorConditions([c('A', 'Unknown', '', T1)], 'X')).not.toHaveProperty('severity');
  });
});
