/**
 * Go `time.Duration` strings (`48h0m0s`, `1.5h`, `90m`, `300ms`), the format KubeMacPool's
 * certificate rotation settings take. The pattern accepts exactly what `time.ParseDuration` parses
 * (overflow aside, which `parseGoDuration` reports).
 */
export const GO_DURATION_PATTERN = '^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';

const DURATION_RE = new RegExp(GO_DURATION_PATTERN);
// Escaped: the bundler keeps a regular expression's characters as written, and one character past
// Latin-1 in the bundle makes V8 hold its whole source as two-byte text (~0.5 MiB more per process).
const TERM_RE = /([0-9]*)(?:\.([0-9]*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g;

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_DURATION = (1n << 63n) - 1n;

/** Nanoseconds, or undefined when the text is not a Go duration (or overflows int64 like Go). */
export function parseGoDuration(text: string): bigint | undefined {
  if (!DURATION_RE.test(text)) return undefined;
  const negative = text.startsWith('-');
  const body = text.replace(/^[-+]/, '');
  if (body === '0') return 0n;
  let total = 0n;
  for (const m of body.matchAll(TERM_RE)) {
    const unit = NS_PER_UNIT[m[3] ?? ''] ?? 1n;
    const whole = BigInt(m[1] || '0');
    const fraction = m[2] ?? '';
    // Go truncates the fractional part to nanoseconds.
    const fracNs = fraction === '' ? 0n : (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    total += whole * unit + fracNs;
    if (total > MAX_DURATION + (negative ? 1n : 0n)) return undefined;
  }
  return negative ? -total : total;
}

function trimFraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** Go's `Duration.String()`: `2h0m0s`, `1m30s`, `1.5s`, `300ms`, `0s`. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const abs = ns < 0n ? -ns : ns;
  if (abs < 1_000n) return `${sign}${abs}ns`;
  if (abs < 1_000_000n) return `${sign}${trimFraction(abs, 3)}µs`;
  if (abs < 1_000_000_000n) return `${sign}${trimFraction(abs, 6)}ms`;
  const hours = abs / NS_PER_UNIT['h']!;
  const minutes = (abs % NS_PER_UNIT['h']!) / NS_PER_UNIT['m']!;
  const seconds = trimFraction(abs % NS_PER_UNIT['m']!, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
