import { describe, expect, it } from 'vitest';
import { effectiveMacRange, fillKubeMacPoolDefaults, validateKubeMacPool } from './kubemacpool-range.js';

const bytes =
  (...b: number[]) =>
  () =>
    Uint8Array.from(b);

describe('validateKubeMacPool', () => {
  it.each([
    ['no kubeMacPool', undefined],
    ['no range', {}],
    ['empty range', { rangeStart: '', rangeEnd: '' }],
    ['a valid range', { rangeStart: '02:00:00:ff:00:00', rangeEnd: '02:00:00:ff:00:02' }],
    ['a range across first octets', { rangeStart: '02:00:00:00:00:00', rangeEnd: '0A:FF:FF:FF:FF:FF' }],
    ['the upstream README example', { rangeStart: '02:00:00:00:00:00', rangeEnd: 'FD:FF:FF:FF:FF:FF' }],
    ['hyphen and dot notations', { rangeStart: '02-00-00-00-00-00', rangeEnd: '0200.0000.ffff' }],
  ])('accepts %s', (_name, kmp) => {
    expect(validateKubeMacPool(kmp)).toEqual([]);
  });

  it.each([
    [
      { rangeStart: '02:00:00:00:00:00', rangeEnd: '' },
      'both or none of the KubeMacPool ranges needs to be configured',
    ],
    [{ rangeEnd: '02:00:00:FF:FF:FF' }, 'both or none of the KubeMacPool ranges needs to be configured'],
    [
      { rangeStart: '00:00:00:00:00:00:00', rangeEnd: '02:FF:FF:FF:FF:FF' },
      'failed to parse rangeStart because the mac address is invalid',
    ],
    [
      { rangeStart: '02:00:00:00:00:00', rangeEnd: 'FF:FF:FF:FF:FF:FF:FF' },
      'failed to parse rangeEnd because the mac address is invalid',
    ],
    [
      { rangeStart: '02:00:00:ff:00:00', rangeEnd: '02:00:00:00:00:00' },
      'failed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: 02:00:00:ff:00:00 end: 02:00:00:00:00:00',
    ],
    [
      { rangeStart: '02:00:00:FF:00:00', rangeEnd: '02:00:00:ff:00:00' },
      'failed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: 02:00:00:ff:00:00 end: 02:00:00:ff:00:00',
    ],
    [
      { rangeStart: '01:00:00:00:00:00', rangeEnd: '06:FF:FF:FF:FF:FF' },
      'failed to set RangeStart: invalid mac address. Multicast addressing is not supported. Unicast addressing must be used. The first octet is 0X1',
    ],
    [
      { rangeStart: 'FF:00:00:00:00:00', rangeEnd: 'FF:FF:FF:FF:FF:FF' },
      'failed to set RangeStart: invalid mac address. Multicast addressing is not supported. Unicast addressing must be used. The first octet is 0XFF',
    ],
  ])('refuses %j', (kmp, message) => {
    expect(validateKubeMacPool(kmp)).toEqual([message]);
  });

  it('compares the whole address (upstream accepts 0A:00:00:00:00:00 .. 02:FF:FF:FF:FF:FF)', () => {
    expect(validateKubeMacPool({ rangeStart: '0A:00:00:00:00:00', rangeEnd: '02:FF:FF:FF:FF:FF' })).toEqual([
      'failed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: 0a:00:00:00:00:00 end: 02:ff:ff:ff:ff:ff',
    ]);
    expect(
      validateKubeMacPool({ rangeStart: '02:00:00:00:00:01', rangeEnd: '02:00:00:00:00:00' }),
    ).toHaveLength(1);
  });
});

describe('fillKubeMacPoolDefaults', () => {
  const previous = { rangeStart: '02:00:00:00:00:00', rangeEnd: '0A:FF:FF:FF:FF:FF' };

  it('leaves a missing kubeMacPool missing', () => {
    expect(fillKubeMacPoolDefaults(undefined, previous, bytes(1, 2))).toBeUndefined();
  });

  it('reuses the previous range when none is requested', () => {
    expect(fillKubeMacPoolDefaults({ rangeStart: '', rangeEnd: '' }, previous, bytes(1, 2))).toEqual(
      previous,
    );
  });

  it('generates 02:XX:XX:00:00:00-02:XX:XX:ff:ff:ff when there is no previous range', () => {
    expect(fillKubeMacPoolDefaults({}, undefined, bytes(0xab, 0x0c))).toEqual({
      rangeStart: '02:ab:0c:00:00:00',
      rangeEnd: '02:ab:0c:ff:ff:ff',
    });
  });

  it('keeps an explicit range even when the previous one differs, verbatim', () => {
    const requested = { rangeStart: '02:10:10:00:00:00', rangeEnd: '02:10:10:00:FF:FF' };
    expect(fillKubeMacPoolDefaults(requested, previous, bytes(1, 2))).toEqual(requested);
  });
});

describe('effectiveMacRange', () => {
  it('passes a unicast range through verbatim', () => {
    const r = { rangeStart: '02:20:20:00:00:00', rangeEnd: '02:20:20:00:FF:FF' };
    expect(effectiveMacRange(r)).toEqual(r);
  });

  it('lowers a multicast end to the last unicast address below it, keeping the case', () => {
    expect(effectiveMacRange({ rangeStart: '02:00:00:00:00:00', rangeEnd: 'FD:FF:FF:FF:FF:FF' })).toEqual({
      rangeStart: '02:00:00:00:00:00',
      rangeEnd: 'FC:FF:FF:FF:FF:FF',
      adjustedFrom: 'FD:FF:FF:FF:FF:FF',
    });
    expect(
      effectiveMacRange({ rangeStart: '02:00:00:00:00:00', rangeEnd: '03:ff:ff:ff:ff:ff' }).rangeEnd,
    ).toBe('02:ff:ff:ff:ff:ff');
  });
});
