import { compareMac, formatMac, isMulticast, lastUnicastAtOrBelow, type Mac, parseMac } from '../api/mac.js';
import type { KubeMacPoolSpec } from '../api/network-addons-config.js';

const hexOctet = (b: number): string => `0X${b.toString(16).toUpperCase()}`;

const multicastError = (which: 'RangeStart' | 'RangeEnd', mac: Mac): string =>
  `failed to set ${which}: invalid mac address. Multicast addressing is not supported. Unicast addressing must be used. The first octet is ${hexOctet(mac[0] ?? 0)}`;

/**
 * Checks a requested KubeMacPool range; at most one message (the first failing check), as upstream.
 * Unlike upstream, the order check is a real comparison of the two 48-bit numbers (upstream accepts
 * any pair where some byte of the start is lower than the same byte of the end, e.g. 0A:00:00:00:00:00
 * to 02:FF:FF:FF:FF:FF). A multicast rangeEnd is accepted as an upper bound (see `effectiveMacRange`).
 */
export function validateKubeMacPool(kmp: KubeMacPoolSpec | undefined): string[] {
  if (!kmp) return [];
  const start = kmp.rangeStart ?? '';
  const end = kmp.rangeEnd ?? '';
  if (start === '' && end === '') return [];
  if (start === '' || end === '') return ['both or none of the KubeMacPool ranges needs to be configured'];
  const startMac = parseMac(start);
  if (!startMac) return ['failed to parse rangeStart because the mac address is invalid'];
  const endMac = parseMac(end);
  if (!endMac) return ['failed to parse rangeEnd because the mac address is invalid'];
  if (compareMac(startMac, endMac) >= 0) {
    return [
      `failed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: ${formatMac(startMac)} end: ${formatMac(endMac)}`,
    ];
  }
  if (isMulticast(startMac)) return [multicastError('RangeStart', startMac)];
  return [];
}

/** Two random bytes; injectable so tests are deterministic. */
export type RandomBytes = (n: number) => Uint8Array;

/**
 * Fills in the range: an explicit range is kept as written; otherwise the previously applied range
 * is reused; otherwise a random locally administered unicast /24 of the 02:XX:XX prefix is generated.
 */
export function fillKubeMacPoolDefaults(
  kmp: KubeMacPoolSpec | undefined,
  previous: KubeMacPoolSpec | undefined,
  random: RandomBytes,
): KubeMacPoolSpec | undefined {
  if (!kmp) return undefined;
  if (kmp.rangeStart && kmp.rangeEnd) return { rangeStart: kmp.rangeStart, rangeEnd: kmp.rangeEnd };
  if (previous?.rangeStart && previous.rangeEnd) {
    return { rangeStart: previous.rangeStart, rangeEnd: previous.rangeEnd };
  }
  const [a = 0, b = 0] = random(2);
  return {
    rangeStart: formatMac([0x02, a, b, 0x00, 0x00, 0x00]),
    rangeEnd: formatMac([0x02, a, b, 0xff, 0xff, 0xff]),
  };
}

export interface EffectiveMacRange {
  rangeStart: string;
  rangeEnd: string;
  /** Set when rangeEnd was a multicast address and KubeMacPool gets the last unicast one below it. */
  adjustedFrom?: string;
}

/**
 * The range KubeMacPool is configured with. KubeMacPool refuses a multicast bound, yet the upstream
 * README's own example ends at FD:FF:FF:FF:FF:FF; such an end is lowered to the last unicast address
 * below it (FC:FF:FF:FF:FF:FF): only group addresses, which no interface may use, are cut off.
 * Otherwise the strings are passed verbatim (case kept), as upstream does.
 */
export function effectiveMacRange(kmp: Required<KubeMacPoolSpec>): EffectiveMacRange {
  const end = parseMac(kmp.rangeEnd);
  if (!end || !isMulticast(end)) return { rangeStart: kmp.rangeStart, rangeEnd: kmp.rangeEnd };
  const lowered = formatMac(lastUnicastAtOrBelow(end));
  return {
    rangeStart: kmp.rangeStart,
    rangeEnd: /[a-f]/.test(kmp.rangeEnd) ? lowered : lowered.toUpperCase(),
    adjustedFrom: kmp.rangeEnd,
  };
}
