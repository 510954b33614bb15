/** Median, minimum and maximum of some runs' figures. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(values: readonly number[]): Summary | undefined {
  // NaN: the run has no such figure. Infinity: it never got there (a timed-out scenario) and sorts last.
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
  return { median, min: v[0] as number, max: v[v.length - 1] as number, n: v.length };
}

/** A figure for a table cell: 3 significant digits at most, no trailing zeros. */
export function formatNumber(x: number): string {
  if (x === Number.POSITIVE_INFINITY) return 'never';
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 100) return x.toFixed(0);
  if (abs >= 10) return x.toFixed(1).replace(/\.0$/, '');
  if (abs >= 1) return x.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
  return x.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}
