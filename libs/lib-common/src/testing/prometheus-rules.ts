import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { createHelm, runCommand } from './helm.js';

/** One rule of a PrometheusRule as the chart renders it. */
interface RenderedPromRule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RenderedRuleGroup {
  name: string;
  rules: RenderedPromRule[];
}

export interface ChartRulesOptions {
  helm: string;
  chartDir: string;
  release: string;
  namespace: string;
  /** `--set` values besides `monitoring.enabled=true`. */
  set?: readonly string[];
}

/** The rule groups of the chart's PrometheusRule, rendered with monitoring on. */
export async function renderChartRules(opts: ChartRulesOptions): Promise<RenderedRuleGroup[]> {
  const docs = await createHelm(opts.helm).template(opts.chartDir, {
    release: opts.release,
    namespace: opts.namespace,
    set: ['monitoring.enabled=true', ...(opts.set ?? [])],
  });
  const rules = docs.filter((d) => d.kind === 'PrometheusRule');
  if (rules.length !== 1) throw new Error(`expected one PrometheusRule, the chart rendered ${rules.length}`);
  return (rules[0]?.spec?.['groups'] as RenderedRuleGroup[] | undefined) ?? [];
}

/**
 * `promtool check rules` and `promtool test rules` on the rendered groups: the unit-test file's
 * `rule_files` is pointed at them. Resolves both outputs; rejects with promtool's report.
 */
export async function promtoolRuleTests(
  promtool: string,
  groups: readonly RenderedRuleGroup[],
  testFile: string,
): Promise<{ check: string; test: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'prom-rules-'));
  try {
    const rulesFile = join(dir, 'rules.yaml');
    writeFileSync(rulesFile, stringify({ groups }));
    const tests = parse(readFileSync(testFile, 'utf8')) as Record<string, unknown>;
    const testsFile = join(dir, 'tests.yaml');
    writeFileSync(testsFile, stringify({ ...tests, rule_files: [rulesFile] }));
    const check = await runCommand(promtool, ['check', 'rules', rulesFile]);
    const test = await runCommand(promtool, ['test', 'rules', testsFile]);
    return { check, test };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PROMQL_WORDS = new Set(
  'sum min max avg count stddev stdvar topk bottomk quantile count_values group by without on ignoring group_left group_right and or unless bool offset vector rate irate increase delta deriv absent absent_over_time time histogram_quantile label_replace label_join clamp_min clamp_max inf nan'.split(
    ' ',
  ),
);

/**
 * The series names the rules read (not the ones they record themselves): what a scrape must
 * show. A name is an identifier outside `{…}`, quotes and `[…]`, not followed by `(`, not a
 * PromQL keyword and not a number.
 */
export function seriesReadByRules(groups: readonly RenderedRuleGroup[]): string[] {
  const recorded = new Set(groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
  const names = new Set<string>();
  for (const rule of groups.flatMap((g) => g.rules)) {
    const bare = rule.expr
      .replace(/"[^"]*"|'[^']*'/g, '')
      .replace(/\{[^}]*\}/g, ' ')
      .replace(/\[[^\]]*\]/g, ' ')
      .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
    for (const m of bare.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/g)) {
      const [, name, call] = m;
      if (!name || call || PROMQL_WORDS.has(name) || recorded.has(name)) continue;
      names.add(name);
    }
  }
  return [...names].sort();
}

/**
 * A chart's rules as its unit tests expect them: rendered as release `op` in namespace `ops` with
 * two replicas (so leader election, and its alert, are on), then checked and unit-tested by
 * promtool against `testFile`. Resolves the groups, promtool's reports and the alerts that lack
 * a firing or a quiet case in `testFile`.
 */
export async function testChartRules(opts: {
  promtool: string;
  helm: string;
  chartDir: string;
  testFile: string;
}): Promise<{ groups: RenderedRuleGroup[]; check: string; test: string; untested: string[] }> {
  const groups = await renderChartRules({
    helm: opts.helm,
    chartDir: opts.chartDir,
    release: 'op',
    namespace: 'ops',
    set: ['replicas=2'],
  });
  const reports = await promtoolRuleTests(opts.promtool, groups, opts.testFile);
  // Every alert needs a case where it fires and one where it stays quiet.
  const cases =
    (
      parse(readFileSync(opts.testFile, 'utf8')) as {
        tests?: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
      }
    ).tests?.flatMap((t) => t.alert_rule_test ?? []) ?? [];
  const untested = groups
    .flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])))
    .filter(
      (alert) =>
        !cases.some((c) => c.alertname === alert && (c.exp_alerts?.length ?? 0) > 0) ||
        !cases.some((c) => c.alertname === alert && (c.exp_alerts?.length ?? 0) === 0),
    );
  return { groups, ...reports, untested };
}
