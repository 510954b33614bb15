/**
 * 48-bit MAC addresses in the notations Go's `net.ParseMAC` accepts for EUI-48:
 * `02:00:5e:10:00:00`, `02-00-5E-10-00-00` and `0200.5e10.0000` (hex is case-insensitive).
 * Longer EUI-64 / InfiniBand forms are refused: KubeMacPool allocates 48-bit addresses only.
 */
export const MAC_ADDRESS_PATTERN =
  '^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}-){5}[0-9A-Fa-f]{2}$|^[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}$';

const MAC_RE = new RegExp(MAC_ADDRESS_PATTERN);

export type Mac = readonly number[];

/** The six bytes of a MAC address, or undefined when the text is not one. */
export function parseMac(text: string): Mac | undefined {
  if (!MAC_RE.test(text)) return undefined;
  const hex = text.replace(/[:.-]/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < 12; i += 2) bytes.push(Number.parseInt(hex.slice(i, i + 2), 16));
  return bytes;
}

/** Lower-case, colon-separated (what Go's `HardwareAddr.String()` prints). */
export function formatMac(mac: Mac): string {
  return mac.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** Negative when a < b, zero when equal, positive when a > b, comparing as 48-bit numbers. */
export function compareMac(a: Mac, b: Mac): number {
  for (let i = 0; i < 6; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The I/G bit: set on group (multicast) addresses, which can never be given to an interface. */
export const isMulticast = (mac: Mac): boolean => ((mac[0] ?? 0) & 1) === 1;

/** The highest unicast address that is not above `mac` (itself when it is unicast). */
export function lastUnicastAtOrBelow(mac: Mac): Mac {
  if (!isMulticast(mac)) return mac;
  return [(mac[0] ?? 1) - 1, 0xff, 0xff, 0xff, 0xff, 0xff];
}
