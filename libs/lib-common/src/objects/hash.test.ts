import { describe, expect, it } from 'vitest';
import {
  configMapHash,
  hashChanged,
  hashOfInputHashes,
  inputHash,
  secretHash,
  setHash,
  stableHash,
} from './hash.js';

describe('stableHash', () => {
  it('is 54 characters of the upstream alphabet', () => {
    expect(stableHash({ a: 1 })).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{54}$/);
  });

  it.each<[string, unknown, unknown]>([
    ['top-level key order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    [
      'nested key order',
      { x: { a: [1, { p: 1, q: 2 }], b: 'v' } },
      { x: { b: 'v', a: [1, { q: 2, p: 1 }] } },
    ],
    ['undefined keys', { a: 1, b: undefined }, { a: 1 }],
  ])('ignores %s', (_n, a, b) => {
    expect(stableHash(a)).toBe(stableHash(b));
  });

  it.each<[string, unknown, unknown]>([
    ['array order', [1, 2], [2, 1]],
    ['a nested value', { a: { b: 1 } }, { a: { b: 2 } }],
    ['string vs number', { a: '1' }, { a: 1 }],
    ['an added key', { a: 1 }, { a: 1, b: null }],
  ])('changes with %s', (_n, a, b) => {
    expect(stableHash(a)).not.toBe(stableHash(b));
  });

  it('never changes between versions (a change would re-run every Job and roll every pod on upgrade)', () => {
    expect(stableHash({ hello: 'world' })).toBe('crbrzfqzdql5tlhjpmrgnj4k57bwfrf875djwp9t55mj8666z8stgm');
    expect(stableHash({ b: [1, { d: 2, c: 1 }], a: 'x' })).toBe(
      'wml4lg4cq66flw7ssq2bq7sd9dtx7ct99v2cjvvfcvfhln2xj5k8tg',
    );
    expect(stableHash('')).not.toBe(stableHash(null));
  });
});

describe('input hashes', () => {
  it.each<[string, Record<string, string> | undefined, string, boolean]>([
    ['missing map', undefined, 'h', true],
    ['missing key', { other: 'x' }, 'h', true],
    ['different value', { input: 'old' }, 'h', true],
    ['same value', { input: 'h' }, 'h', false],
  ])('hashChanged: %s → %s', (_n, map, value, changed) => {
    expect(hashChanged(map, 'input', value)).toBe(changed);
    const set = setHash(map, 'input', value);
    expect(set.changed).toBe(changed);
    expect(set.hashes).toEqual({ ...map, input: value });
  });

  it('hashOfInputHashes does not depend on insertion order', () => {
    expect(hashOfInputHashes({ a: '1', b: '2' })).toBe(hashOfInputHashes({ b: '2', a: '1' }));
    expect(hashOfInputHashes({ a: '1', b: '2' })).not.toBe(hashOfInputHashes({ a: '2', b: '1' }));
  });

  it('inputHash reports a change once, then none when stored', () => {
    const first = inputHash(undefined, { 'keystone-config-data': 'x', secret: 'y' });
    expect(first.changed).toBe(true);
    expect(first.hashes['input']).toBe(first.hash);
    const again = inputHash(first.hashes, { secret: 'y', 'keystone-config-data': 'x' });
    expect(again).toEqual({ ...first, changed: false });
    expect(inputHash(first.hashes, { secret: 'z', 'keystone-config-data': 'x' }).changed).toBe(true);
  });

  it('secret and configmap hashes follow content only', () => {
    expect(secretHash({ data: { a: 'eA==' } })).toBe(secretHash({ data: { a: 'eA==' }, type: undefined }));
    expect(secretHash({ data: { a: 'eA==' } })).not.toBe(secretHash({ data: { a: 'eQ==' } }));
    expect(secretHash({ data: { a: 'eA==' }, type: 'Opaque' })).not.toBe(secretHash({ data: { a: 'eA==' } }));
    expect(configMapHash({ data: { b: '2', a: '1' } })).toBe(configMapHash({ data: { a: '1', b: '2' } }));
  });
});
