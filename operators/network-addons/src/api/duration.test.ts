import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration } from './duration.js';

const h = 3_600_000_000_000n;
const m = 60_000_000_000n;
const s = 1_000_000_000n;

describe('parseGoDuration', () => {
  it.each([
    ['48h0m0s', 48n * h],
    ['200h20m2s', 200n * h + 20n * m + 2n * s],
    ['1.5h', 90n * m],
    ['.5s', 500_000_000n],
    ['1.s', s],
    ['300ms', 300_000_000n],
    ['2us', 2_000n],
    ['2\u00b5s', 2_000n],
    ['3\u03bcs', 3_000n],
    ['1h2\u03bcs', h + 2_000n],
    ['7ns', 7n],
    ['0', 0n],
    ['-1h', -h],
    ['+15m', 15n * m],
  ])('parses %s', (text, ns) => {
    expect(parseGoDuration(text)).toBe(ns);
  });

  it.each(['', '1', '1d', 'h', '.s', '1h 2m', 'abc', '00', '9999999999999h'])('refuses %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0n, '0s'],
    [48n * h, '48h0m0s'],
    [90n * m, '1h30m0s'],
    [61n * s, '1m1s'],
    [1_500_000_000n, '1.5s'],
    [300_000_000n, '300ms'],
    [1_500n, '1.5µs'],
    [12n, '12ns'],
    [-2n * h, '-2h0m0s'],
  ])('prints %s as %s', (ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });

  it('round-trips what it prints', () => {
    for (const text of ['200h20m2s', '1.5s', '24h0m0s']) {
      expect(formatGoDuration(parseGoDuration(text)!)).toBe(text);
    }
  });
});
