/**
 * Kubernetes resource quantities in the form the API server's Go types store them
 * (`resource.Quantity.String()`): `cpu: "1.0"` → `"1"`, `1000m` → `"1"`, `1.5` → `"1500m"`,
 * `1024Mi` → `"1Gi"`, `2000` → `"2k"`. An object whose Go type holds a Quantity is re-encoded that
 * way when it passes through a Go webhook or controller; CRDs have no such step, so a defaulting
 * webhook does it here. Values are exact to the nanounit (finer ones round up, as Go's parser does).
 */

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX = Object.fromEntries(Object.entries(DECIMAL).map(([s, e]) => [e, s])) as Record<
  number,
  string
>;
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

/** 10^n as a bigint. */
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `digits` (a decimal string, maybe with a point) × 10^exp, in nanounits, rounded up. */
function toNanos(digits: string, exp: number): bigint {
  const [int = '', frac = ''] = digits.split('.');
  const scale = exp + 9 - frac.length;
  const mantissa = BigInt(`${int}${frac}` || '0');
  if (scale >= 0) return mantissa * pow10(scale);
  const div = pow10(-scale);
  return (mantissa + div - 1n) / div;
}

/** The canonical decimal form of `nanos`: the largest exponent (a multiple of 3, ≥ -9) giving an integer. */
function decimal(nanos: bigint, exponentForm: boolean): string {
  if (nanos === 0n) return '0';
  let exp = -9;
  let mantissa = nanos;
  while (exp < 18 && mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exp += 3;
  }
  if (exponentForm) return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
  return `${mantissa}${DECIMAL_SUFFIX[exp]}`;
}

/**
 * The canonical form of a quantity, or undefined when `value` is not a valid quantity (left as
 * written: the API server or the operator reports it).
 */
export function canonicalQuantity(value: string | number): string | undefined {
  const m = QUANTITY.exec(String(value).trim());
  if (!m) return undefined;
  const [, sign = '', digits = '', suffix = ''] = m;
  let nanos: bigint;
  let format: 'binary' | 'decimal' | 'exponent';
  if (suffix in BINARY) {
    format = 'binary';
    // × 2^k exactly, then to nanounits (2^k is an integer: no rounding beyond the digits' own)
    const [int = '', frac = ''] = digits.split('.');
    const scaled = BigInt(`${int}${frac}` || '0') * 2n ** BigInt(BINARY[suffix] ?? 0);
    nanos = toNanos(scaled.toString(), -frac.length);
  } else if (/^[eE]/.test(suffix)) {
    format = 'exponent';
    nanos = toNanos(digits, Number(suffix.slice(1)));
  } else {
    format = 'decimal';
    nanos = toNanos(digits, DECIMAL[suffix] ?? 0);
  }
  const negative = sign === '-' && nanos !== 0n;
  const abs = nanos;
  let out: string;
  const bytes = abs % 1_000_000_000n === 0n ? abs / 1_000_000_000n : undefined;
  if (format === 'binary' && bytes !== undefined && bytes >= 1024n) {
    // Go keeps the binary form for whole values of 1024 and more: the largest power of 1024 dividing it.
    let n = bytes;
    let i = 0;
    const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
    while (i < 6 && n % 1024n === 0n) {
      n /= 1024n;
      i++;
    }
    out = `${n}${suffixes[i]}`;
  } else {
    out = decimal(abs, format === 'exponent');
  }
  return negative ? `-${out}` : out;
}

/**
 * Canonicalises every quantity under `resources.requests` / `resources.limits` anywhere in `value`
 * (the `corev1.ResourceRequirements` fields of a spec), in place. Returns whether anything changed.
 */
export function canonicalizeResourceQuantities(value: unknown): boolean {
  if (Array.isArray(value)) return value.map(canonicalizeResourceQuantities).some(Boolean);
  if (typeof value !== 'object' || value === null) return false;
  let changed = false;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'resources' && typeof child === 'object' && child !== null && !Array.isArray(child)) {
      for (const list of ['requests', 'limits']) {
        const map = (child as Record<string, unknown>)[list];
        if (typeof map !== 'object' || map === null) continue;
        for (const [name, q] of Object.entries(map as Record<string, unknown>)) {
          if (typeof q !== 'string' && typeof q !== 'number') continue;
          const canonical = canonicalQuantity(q);
          if (canonical !== undefined && canonical !== q) {
            (map as Record<string, unknown>)[name] = canonical;
            changed = true;
          }
        }
      }
    }
    if (canonicalizeResourceQuantities(child)) changed = true;
  }
  return changed;
}
