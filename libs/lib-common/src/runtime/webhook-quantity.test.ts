import { describe, expect, it } from 'vitest';
import { canonicalizeResourceQuantities, canonicalQuantity } from './webhook-quantity.js';

describe('canonicalQuantity (the form the API server stores through Go types)', () => {
  it.each([
    ['1.0', '1'],
    ['1000m', '1'],
    ['1.5', '1500m'],
    ['100m', '100m'],
    ['0.5', '500m'],
    ['2000', '2k'],
    ['2048', '2048'],
    ['500Mi', '500Mi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Ki', '512'],
    ['1.1Gi', '1181116006400m'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['129M', '129M'],
    ['0.0001m', '100n'],
    ['0', '0'],
    ['-1.5', '-1500m'],
  ])('%s → %s', (written, stored) => {
    expect(canonicalQuantity(written)).toBe(stored);
  });

  it('numbers too; an invalid value is left to the API server', () => {
    expect(canonicalQuantity(2)).toBe('2');
    expect(canonicalQuantity('one')).toBeUndefined();
    expect(canonicalQuantity('1Xi')).toBeUndefined();
  });

  it('rewrites requests and limits of every `resources`, nothing else', () => {
    const spec = {
      resources: { requests: { cpu: '1.0', memory: '500Mi' }, limits: { memory: '1024Mi' } },
      nested: [{ resources: { requests: { cpu: '1000m' } } }],
      other: { cpu: '1.0' },
    };
    expect(canonicalizeResourceQuantities(spec)).toBe(true);
    expect(spec).toEqual({
      resources: { requests: { cpu: '1', memory: '500Mi' }, limits: { memory: '1Gi' } },
      nested: [{ resources: { requests: { cpu: '1' } } }],
      other: { cpu: '1.0' },
    });
    expect(canonicalizeResourceQuantities(spec)).toBe(false);
  });
});
