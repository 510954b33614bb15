import { resolve } from 'node:path';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import {
  keystoneTarget,
  networkAddonsTarget,
  OPENSTACK_NAMESPACE,
  placementTarget,
  SIP_NAMESPACE,
  sipTarget,
} from '@stackops/demo/targets';
import { Kinds } from '@stackops/lib-common/client';
import { renderChartRules, seriesReadByRules, waitForDeletion } from '@stackops/lib-common/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  applyExample,
  type CrRef,
  cleanUp,
  deleteNamespaces,
  expectRunsForReal,
  fetchInNode,
  helm,
  helmBinaryPath,
  helmInstall,
  jsonLogs,
  readyPods,
  repoRoot,
  scrapeMetrics,
  tlsVersionInNode,
  waitForCondition,
} from './support.js';

/**
 * Each operator chart by itself, as a user installs it: `helm install --wait` from the image built
 * here, the operator as a pod on the real node (Ready through kubelet's probes on the pod IP), its
 * sample converged through the pod's own ServiceAccount token (no impersonation: the chart's RBAC
 * is all it has), its metrics scraped through the pod IP, its logs read with `kubectl logs`.
 */
const client = adminClient();
afterAll(async () => {
  await deleteNamespaces(client, [OPENSTACK_NAMESPACE, SIP_NAMESPACE]);
  client.close();
});

interface ChartCase {
  operator: 'keystone' | 'placement' | 'network-addons' | 'sip';
  /** The controller whose reconciles the metrics must count. */
  controller: string;
  values?: Record<string, unknown>;
  samples: { file: string; namespace?: string }[];
  /** The custom resource the samples create. */
  cr: CrRef;
  /** Waits until it converged (or, for placement alone, says what it waits for). */
  converge: (cr: CrRef) => Promise<void>;
}

/** An OpenStack operator's sample in the openstack namespace, after the prerequisites it needs. */
const openstackSamples = (file: string) => [
  { file: '00-openstack-prereqs.yaml', namespace: OPENSTACK_NAMESPACE },
  { file, namespace: OPENSTACK_NAMESPACE },
];

const cases: ChartCase[] = [
  {
    operator: 'keystone',
    controller: 'keystoneapi',
    samples: openstackSamples('10-keystoneapi.yaml'),
    cr: keystoneTarget,
    converge: async (cr) => {
      await waitForCondition(client, cr.kind, cr, 'Ready', 'True');
    },
  },
  {
    // Without keystone-operator, a PlacementAPI cannot converge: alone, placement-operator must still
    // reconcile it under its chart's RBAC and say what it waits for.
    operator: 'placement',
    controller: 'placementapi',
    samples: openstackSamples('20-placementapi.yaml'),
    cr: placementTarget,
    converge: async (cr) => {
      const obj = await waitForCondition(client, cr.kind, cr, 'Ready', 'False');
      expect(JSON.stringify(obj['status'])).toMatch(/[Kk]eystone/);
    },
  },
  {
    operator: 'network-addons',
    controller: 'networkaddonsconfig',
    samples: [{ file: '30-networkaddonsconfig.yaml' }],
    cr: networkAddonsTarget,
    converge: async (cr) => {
      await waitForCondition(client, cr.kind, cr, 'Available', 'True');
    },
  },
  {
    operator: 'sip',
    controller: 'sipcluster',
    values: { installBareMetalHostCRD: true },
    samples: [{ file: '40-sipcluster.yaml' }],
    cr: sipTarget,
    converge: async (cr) => {
      await waitForCondition(client, cr.kind, cr, 'Ready', 'True');
    },
  },
];

describe('each operator chart, alone, on the real node', () => {
  for (const c of cases) {
    it(`${c.operator}-operator: Ready pod from the built image, sample converged as its ServiceAccount, metrics, JSON logs`, async () => {
      const release = `${c.operator}-e2e`;
      const namespace = `e2e-${c.operator}`;
      try {
        await helmInstall(release, `${c.operator}-operator`, namespace, {
          ...operatorOnRealNodeValues,
          ...c.values,
        });
        const [pod] = await readyPods(client, namespace, release, 1);
        expect(expectRunsForReal(pod!, c.operator)).toEqual([]);
        // The pod runs as the ServiceAccount its chart created and bound to the chart's roles.
        const accounts = await client.list(Kinds.ServiceAccount, {
          namespace,
          labelSelector: `app.kubernetes.io/instance=${release}`,
        });
        expect(accounts.items.map((a) => a.metadata.name)).toEqual([pod!.spec.serviceAccountName]);

        for (const s of c.samples) await applyExample(s.file, s.namespace);
        await c.converge(c.cr);

        // Scraped where Prometheus would: the pod IP, from inside the node's network, over HTTPS
        // with a token the operator has the API server review (secure metrics, the chart default).
        expect((await fetchInNode(`https://${pod!.status?.podIP}:8080/metrics`)).status).toBe(401);
        const metrics = await scrapeMetrics(pod!.status?.podIP, namespace, release);
        expect(metrics.status).toBe(200);
        // Reconciles that ended well: a success, or a success that asks to be looked at again later.
        const reconciled = [
          ...metrics.body.matchAll(
            new RegExp(
              `^controller_runtime_reconcile_total\\{controller="${c.controller}",result="(success|requeue_after)"\\} (\\d+)`,
              'gm',
            ),
          ),
        ].reduce((sum, m) => sum + Number(m[2]), 0);
        expect(
          reconciled,
          metrics.body.match(/^controller_runtime_reconcile_total.*$/gm)?.join('\n'),
        ).toBeGreaterThan(0);
        // Every series the chart's PrometheusRule reads is in this scrape, but `up` (Prometheus makes
        // it) and KubeMacPool's own series (scraped from KubeMacPool's pods).
        const rules = await renderChartRules({
          helm: helmBinaryPath,
          chartDir: resolve(repoRoot, `charts/${c.operator}-operator`),
          release,
          namespace,
        });
        const missing = seriesReadByRules(rules).filter(
          (name) =>
            name !== 'up' &&
            !name.startsWith('kmp_') &&
            !name.startsWith('kubevirt_kmp_') &&
            !new RegExp(`^${name}[{ ]`, 'm').test(metrics.body),
        );
        expect(missing, 'series the rules read but the operator does not export').toEqual([]);
        // The chart's metrics.tlsMinVersion (VersionTLS13 but for sip), or for network-addons its
        // NetworkAddonsConfig's profile (none: Modern, TLS 1.3).
        expect(await tlsVersionInNode(pod!.status!.podIP!, 8080, 'TLSv1.2')).toBe(
          c.operator === 'sip' ? 'TLSv1.2' : 'refused',
        );
        expect(await tlsVersionInNode(pod!.status!.podIP!, 8080, 'TLSv1.3')).toBe('TLSv1.3');

        // In-cluster config: the API server through the kubernetes Service's VIP.
        expect(metrics.body).toMatch(
          /^rest_client_requests_total\{[^}]*host="10\.96\.0\.1(:443)?"[^}]*\} \d+/m,
        );

        const logs = await jsonLogs(namespace, pod!.metadata.name!);
        expect(logs.length).toBeGreaterThan(0);
        for (const line of logs) {
          expect(typeof line['level'], JSON.stringify(line)).toBe('number');
          expect(typeof line['msg'], JSON.stringify(line)).toBe('string');
          expect(line['name']).toBe(`${c.operator}-operator`);
          expect(line['hostname']).toBe(pod!.metadata.name);
        }
        expect(logs.map((l) => l['msg'])).toContain('manager started');

        // Deleted while the operator runs, so it releases its finalizers.
        await client.delete(c.cr.kind, c.cr);
        await waitForDeletion(client, c.cr.kind, c.cr, { timeoutMs: 120_000 });
        await helm(['uninstall', release, '-n', namespace, '--wait']);
      } finally {
        await cleanUp(client, [c.cr], [{ release, namespace }]);
        await client.delete(Kinds.Namespace, { name: namespace }).catch(() => false);
      }
    });
  }
});
