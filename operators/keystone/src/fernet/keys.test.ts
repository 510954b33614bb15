import { describe, expect, it } from 'vitest';
import { ensureKeys, fernetKey } from './keys.js';

let counter = 0;
const gen = () => `k${counter++}`;
const now = new Date('2026-01-10T12:00:00Z');
const fernet = (data: Record<string, string>) =>
  Object.keys(data)
    .filter((k) => k.startsWith('FernetKeys'))
    .sort((a, b) => Number(a.slice(10)) - Number(b.slice(10)))
    .map((k) => data[k]);

const five = {
  CredentialKeys0: 'c0',
  CredentialKeys1: 'c1',
  FernetKeys0: 'o0',
  FernetKeys1: 'o1',
  FernetKeys2: 'o2',
  FernetKeys3: 'o3',
  FernetKeys4: 'o4',
};

describe('ensureKeys', () => {
  /** `ensureKeys` over `five`, N = 5, rotated daily, at `now`; each case names what it changes. */
  const ensure = (input: Partial<Parameters<typeof ensureKeys>[0]>) =>
    ensureKeys({
      data: five,
      rotatedAt: undefined,
      maxActiveKeys: 5,
      rotationDays: 1,
      now,
      generate: gen,
      ...input,
    });

  it('creates N fernet keys and two credential keys when the Secret is missing', () => {
    const r = ensure({ data: undefined, maxActiveKeys: 3 });
    expect(Object.keys(r.data).sort()).toEqual([
      'CredentialKeys0',
      'CredentialKeys1',
      'FernetKeys0',
      'FernetKeys1',
      'FernetKeys2',
    ]);
    expect(r.rotatedAt).toBe('2026-01-10T12:00:00Z');
    expect(r.nextRotation.toISOString()).toBe('2026-01-11T12:00:00.000Z');
  });

  it('does nothing before the rotation is due', () => {
    const r = ensure({ rotatedAt: '2026-01-10T00:00:00Z' });
    expect(r.changed).toBe(false);
    expect(r.data).toEqual(five);
    expect(r.nextRotation.toISOString()).toBe('2026-01-11T00:00:00.000Z');
  });

  it('rotates as upstream: new[4]=old[0], new[i-1]=old[i] for i=2..4, old[1] dropped, fresh new[0]', () => {
    const r = ensure({ rotatedAt: '2026-01-09T11:00:00Z', generate: () => 'fresh' });
    expect(r.rotated).toBe(true);
    expect(fernet(r.data)).toEqual(['fresh', 'o2', 'o3', 'o4', 'o0']);
    expect(r.data['CredentialKeys0']).toBe('c0');
    expect(r.rotatedAt).toBe('2026-01-10T12:00:00Z');
  });

  it('drops the oldest secondaries when N shrinks (5 → 4) and adds fresh ones when it grows (5 → 6)', () => {
    const smaller = ensure({ rotatedAt: '2026-01-10T00:00:00Z', maxActiveKeys: 4 });
    expect(fernet(smaller.data)).toEqual(['o0', 'o2', 'o3', 'o4']);
    const bigger = ensure({ rotatedAt: '2026-01-10T00:00:00Z', maxActiveKeys: 6, generate: () => 'n' });
    expect(fernet(bigger.data)).toEqual(['o0', 'n', 'o1', 'o2', 'o3', 'o4']);
    expect(bigger.data[fernetKey(5)]).toBe('o4');
  });

  it('rewrites an unreadable timestamp without rotating', () => {
    const r = ensure({ rotatedAt: 'yesterday' });
    expect(r.changed).toBe(true);
    expect(r.rotated).toBe(false);
    expect(fernet(r.data)).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
  });

  it('grows to 100 keys', () => {
    const r = ensure({ data: undefined, maxActiveKeys: 100 });
    expect(fernet(r.data)).toHaveLength(100);
  });
});
