import { join } from 'node:path';
import { cacheLayout, ensurePromtool } from '@stackops/kube-env';
import { testChartRules } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';

const chartDir = join(import.meta.dirname, '../../../charts/sip-operator');

describe('the chart PrometheusRule (monitoring.enabled)', () => {
  it('passes promtool check rules and the unit tests in prometheus-rules.yaml, every alert tested', async () => {
    const { groups, check, test, untested } = await testChartRules({
      promtool: await ensurePromtool(),
      helm: join(cacheLayout().bin, 'helm'),
      chartDir,
      testFile: join(import.meta.dirname, 'prometheus-rules.yaml'),
    });
    expect(check).toMatch(/SUCCESS: \d+ rules found/);
    expect(test).toMatch(/SUCCESS/);
    expect(untested).toEqual([]);
    expect(groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : []))).length).toBeGreaterThan(
      4,
    );
  }, 900_000);
});
