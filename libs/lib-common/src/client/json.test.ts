import { describe, expect, it } from 'vitest';
import { deepEqual, isSubset, mergePatchDiff, stableStringify } from './json.js';

describe('deepEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['key order ignored', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    ['array order matters', [1, 2], [2, 1], false],
    ['undefined key = absent', { a: 1, b: undefined }, { a: 1 }, true],
    ['extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['null vs absent', { a: null }, {}, false],
    ['different scalar', { a: '1' }, { a: 1 }, false],
    ['object vs array', {}, [], false],
  ])('%s', (_n, a, b, eq) => {
    expect(deepEqual(a, b)).toBe(eq);
    expect(deepEqual(b, a)).toBe(eq);
  });
});

describe('isSubset', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['server-added fields are ignored', { spec: { a: 1 } }, { spec: { a: 1, b: 2 }, status: {} }, true],
    ['changed value', { spec: { a: 1 } }, { spec: { a: 2 } }, false],
    ['missing field', { spec: { a: 1 } }, { spec: {} }, false],
    ['arrays compare element-wise', { l: [{ n: 'x' }] }, { l: [{ n: 'x', d: 1 }] }, true],
    ['array length differs', { l: [{ n: 'x' }] }, { l: [{ n: 'x' }, { n: 'y' }] }, false],
    ['empty desired map matches an absent one', { nodeSelector: {} }, {}, true],
    ['false matches absent (omitempty)', { hostNetwork: false }, {}, true],
    ['0 does not match absent', { replicas: 0 }, {}, false],
    ['non-empty does not match absent', { a: { b: 1 } }, {}, false],
  ])('%s', (_n, desired, live, expected) => {
    expect(isSubset(desired, live)).toBe(expected);
  });
});

describe('stableStringify', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(stableStringify({ b: [{ z: 1, a: 2 }], a: { d: 1, c: undefined } })).toBe(
      '{"a":{"d":1},"b":[{"a":2,"z":1}]}',
    );
  });
});

describe('mergePatchDiff', () => {
  it.each<[string, unknown, unknown, unknown]>([
    ['nothing changed', { a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 }, undefined],
    ['changed scalar only', { a: 1, b: 2 }, { a: 1, b: 3 }, { b: 3 }],
    ['removed key → null', { a: 1, b: 2 }, { a: 1 }, { b: null }],
    ['nested change', { m: { x: 1, y: 2 } }, { m: { x: 1, y: 3 } }, { m: { y: 3 } }],
    ['array replaced whole', { l: [1, 2] }, { l: [1, 3] }, { l: [1, 3] }],
    ['new key', {}, { n: { a: 1 } }, { n: { a: 1 } }],
  ])('%s', (_n, from, to, patch) => {
    expect(mergePatchDiff(from, to)).toEqual(patch);
  });
});
