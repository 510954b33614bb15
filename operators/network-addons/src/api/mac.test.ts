import { describe, expect, it } from 'vitest';
import { compareMac, formatMac, isMulticast, lastUnicastAtOrBelow, parseMac } from './mac.js';

describe('parseMac', () => {
  it.each([
    ['02:00:5e:10:00:ff', [2, 0, 0x5e, 0x10, 0, 0xff]],
    ['02-00-5E-10-00-FF', [2, 0, 0x5e, 0x10, 0, 0xff]],
    ['0200.5e10.00ff', [2, 0, 0x5e, 0x10, 0, 0xff]],
  ])('reads %s', (text, bytes) => {
    expect(parseMac(text)).toEqual(bytes);
  });

  it.each([
    'foo',
    'this:aint:right',
    '00:00:00:00:00:00:00',
    '02:00:00:00:00',
    '2:00:00:00:00:00',
    '02:00-00:00:00:00',
    '02:00:00:00:00:0g',
    '',
  ])('refuses %j', (text) => {
    expect(parseMac(text)).toBeUndefined();
  });
});

describe('MAC arithmetic', () => {
  it('formats lower case with colons', () => {
    expect(formatMac([0x0a, 0xff, 0, 1, 2, 0xab])).toBe('0a:ff:00:01:02:ab');
  });

  it('compares as 48-bit numbers, not byte by byte in isolation', () => {
    const a = parseMac('0A:00:00:00:00:00')!;
    const b = parseMac('02:FF:FF:FF:FF:FF')!;
    expect(compareMac(a, b)).toBeGreaterThan(0);
    expect(compareMac(b, a)).toBeLessThan(0);
    expect(compareMac(a, a)).toBe(0);
  });

  it('knows group addresses by the I/G bit', () => {
    expect(isMulticast(parseMac('01:00:00:00:00:00')!)).toBe(true);
    expect(isMulticast(parseMac('FD:FF:FF:FF:FF:FF')!)).toBe(true);
    expect(isMulticast(parseMac('02:00:00:00:00:00')!)).toBe(false);
  });

  it('finds the last unicast address at or below a bound', () => {
    expect(formatMac(lastUnicastAtOrBelow(parseMac('FD:FF:FF:FF:FF:FF')!))).toBe('fc:ff:ff:ff:ff:ff');
    expect(formatMac(lastUnicastAtOrBelow(parseMac('03:00:00:00:00:00')!))).toBe('02:ff:ff:ff:ff:ff');
    expect(formatMac(lastUnicastAtOrBelow(parseMac('0a:00:00:00:00:01')!))).toBe('0a:00:00:00:00:01');
  });
});
