import { describe, expect, it } from 'vitest';
import { formatLabelSelector, labelMatcher, parseLabelSelector } from './selector.js';

describe('label selectors', () => {
  it('parses equality, set-based and existence requirements', () => {
    expect(parseLabelSelector('a=b, c!=d,e in (x, y),f notin (z),g,!h,i==j')).toEqual([
      { key: 'a', op: '=', value: 'b' },
      { key: 'c', op: '!=', value: 'd' },
      { key: 'e', op: 'in', values: ['x', 'y'] },
      { key: 'f', op: 'notin', values: ['z'] },
      { key: 'g', op: 'exists' },
      { key: 'h', op: '!exists' },
      { key: 'i', op: '=', value: 'j' },
    ]);
  });

  it('matches labels like the API server', () => {
    const m = labelMatcher('app.kubernetes.io/name=keystone,tier in (api,db),!legacy,env notin (dev)');
    expect(m({ 'app.kubernetes.io/name': 'keystone', tier: 'api' })).toBe(true);
    expect(m({ 'app.kubernetes.io/name': 'keystone', tier: 'web' })).toBe(false);
    expect(m({ 'app.kubernetes.io/name': 'keystone', tier: 'db', legacy: 'true' })).toBe(false);
    expect(m({ 'app.kubernetes.io/name': 'keystone', tier: 'db', env: 'dev' })).toBe(false);
    expect(m(undefined)).toBe(false);
    expect(labelMatcher('a!=b')(undefined)).toBe(true);
    expect(labelMatcher('')({})).toBe(true);
    expect(labelMatcher({ a: '1' })({ a: '1', b: '2' })).toBe(true);
  });

  it('rejects malformed requirements', () => {
    expect(() => parseLabelSelector('a in x')).toThrow(/invalid label selector/);
  });

  it('formats equality labels', () => {
    expect(formatLabelSelector({ a: '1', b: '2' })).toBe('a=1,b=2');
  });
});
