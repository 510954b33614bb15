import { join } from 'node:path';
import { ensurePromtool } from '@stackops/kube-env';
import { testChartRules } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { helm, helmBinaryPath, repoRoot } from './support.js';

/**
 * Each operator chart's PrometheusRule (monitoring.enabled) through Prometheus' own promtool: `check
 * rules`, then the unit tests in prometheus-rules/<chart>.yaml, which must hold a firing and a quiet
 * case for every alert. No cluster needed; the series the rules read are checked against real
 * scrapes in operator-charts.test.ts.
 */
describe('the charts PrometheusRules under promtool', () => {
  for (const chart of [
    'keystone-operator',
    'placement-operator',
    'network-addons-operator',
    'sip-operator',
  ]) {
    it(`${chart}: promtool check rules and test rules pass, every alert has a firing and a quiet case; bad monitoring values refused`, async () => {
      const { groups, check, test, untested } = await testChartRules({
        promtool: await ensurePromtool(),
        helm: helmBinaryPath,
        chartDir: join(repoRoot, 'charts', chart),
        testFile: join(import.meta.dirname, 'prometheus-rules', `${chart}.yaml`),
      });
      expect(check).toMatch(/SUCCESS: \d+ rules found/);
      expect(test).toMatch(/SUCCESS/);
      expect(untested).toEqual([]);
      expect(groups.flatMap((g) => g.rules.filter((r) => r.alert)).length).toBeGreaterThanOrEqual(5);
      // A runbook template without its one %s, or an unknown TLS version, is refused by the schema.
      for (const bad of [
        'monitoring.runbookUrlTemplate=https://runbooks.example',
        'metrics.tlsMinVersion=TLSv1.3',
      ])
        await expect(helm(['template', 'op', join(repoRoot, 'charts', chart), '--set', bad])).rejects.toThrow(
          new RegExp(`${bad.split('=')[0]?.split('.')[1]}[\\s\\S]*(pattern|must be one of)`),
        );
    });
  }
});
