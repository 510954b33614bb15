import type { RunFigures } from './runner.js';
import { formatNumber, type Summary, summarize } from './stats.js';

/** A target of issue 20, checked against the median of the runs. */
interface Target {
  figure: string;
  text: string;
  met: (median: number, all: Record<string, Summary | undefined>) => boolean | undefined;
}

const IDLE_RSS_MIB = 60;
export const targets: readonly Target[] = [
  { figure: 'startup: spawn → ready (s)', text: '≤ 0.12', met: (m) => m <= 0.12 },
  { figure: 'restart: spawn → ready (s)', text: '≤ 0.12', met: (m) => m <= 0.12 },
  { figure: 'apply: ÷ control plane', text: '≤ 1.10', met: (m) => m <= 1.1 },
  { figure: 'idle: CPU s / 5 min', text: '≤ 0.1', met: (m) => m <= 0.1 },
  { figure: 'idle: writes / 5 min', text: '0', met: (m) => m === 0 },
  { figure: 'idle: RSS (MiB)', text: `≤ ${IDLE_RSS_MIB}`, met: (m) => m <= IDLE_RSS_MIB },
  { figure: 'restart: writes', text: '0', met: (m) => m === 0 },
  { figure: '200: apply → all done (s)', text: '≤ 20', met: (m) => m <= 20 },
  {
    figure: '200: peak RSS (MiB)',
    text: '≤ 1.5 × idle RSS',
    met: (m, all) => {
      const idle = all['idle: RSS (MiB)']?.median;
      return idle === undefined ? undefined : m <= 1.5 * idle;
    },
  },
];

export interface OperatorResult {
  name: string;
  runs: RunFigures[];
}

/** Median/min/max of every figure over the runs, with the target and the verdict where there is one. */
export function summaryTable(result: OperatorResult): string[][] {
  const names = [...new Set(result.runs.flatMap((r) => Object.keys(r)))];
  const all: Record<string, Summary | undefined> = {};
  for (const n of names) all[n] = summarize(result.runs.map((r) => r[n]?.value ?? Number.NaN));
  return names.map((n) => {
    const s = all[n];
    const target = targets.find((t) => t.figure === n);
    const verdict = s && target ? target.met(s.median, all) : undefined;
    return [
      result.name,
      n,
      s ? formatNumber(s.median) : 'n/a',
      s ? formatNumber(s.min) : '',
      s ? formatNumber(s.max) : '',
      s ? String(s.n) : '0',
      target?.text ?? '',
      target ? (verdict === undefined ? '?' : verdict ? 'met' : 'MISSED') : '',
    ];
  });
}

/** A plain text table: columns padded, numbers right-aligned. */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = (i: number) => i >= 2 && i <= 5;
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const TABLE_HEADER = ['operator', 'figure', 'median', 'min', 'max', 'n', 'target', 'verdict'];

/** The request breakdowns of the last run, one line each. */
export function details(result: OperatorResult): string[] {
  const last = result.runs[result.runs.length - 1] ?? {};
  return Object.entries(last)
    .filter(([, f]) => f.detail)
    .map(([n, f]) => `${result.name}  ${n}: ${f.detail}`);
}
