import { resolve } from 'node:path';
import type { KubeClient } from '@stackops/lib-common/client';
import { type OperatorRunSpec, operatorRunSpec } from './chart-run.js';
import { run } from './exec.js';

export const RELEASE = 'stackops';
export const RELEASE_NAMESPACE = 'stackops-system';
const chartDir = resolve(import.meta.dirname, '../../../charts/stackops');

/** The chart aliases in the umbrella chart, keyed by operators/<dir>. */
export const chartAliases = {
  keystone: 'keystone',
  placement: 'placement',
  'network-addons': 'networkaddons',
  sip: 'sip',
} as const;
export type OperatorDir = keyof typeof chartAliases;

/**
 * `helm dependency build` (offline: file:// dependencies) and `helm upgrade --install` of the
 * umbrella chart, waiting for the operator Deployments: their pods Ready on the real node, or made
 * Ready by kwok. `valuesFile` adds values (e.g. each operator's placement).
 */
export async function installUmbrella(helm: string, kubeconfig: string, valuesFile?: string): Promise<void> {
  await run(helm, ['dependency', 'build', chartDir, '--skip-refresh']);
  await run(helm, [
    'upgrade',
    '--install',
    RELEASE,
    chartDir,
    '--namespace',
    RELEASE_NAMESPACE,
    '--create-namespace',
    '--kubeconfig',
    kubeconfig,
    // The demo cluster has no metal3: the SIP chart brings the BareMetalHost CRD subset.
    '--set',
    'sip.installBareMetalHostCRD=true',
    // The demo shows (and runs out of the cluster) each operator's own Deployment (ADR 0044).
    '--set',
    'global.operators.mode=separate',
    ...(valuesFile ? ['-f', valuesFile] : []),
    '--wait',
    '--timeout',
    '5m',
  ]);
}

/** Each operator's Deployment from the umbrella chart: its ServiceAccount, container args and env. */
export async function operatorRunSpecs(client: KubeClient): Promise<Record<OperatorDir, OperatorRunSpec>> {
  const out: Partial<Record<OperatorDir, OperatorRunSpec>> = {};
  for (const [dir, alias] of Object.entries(chartAliases) as [OperatorDir, string][]) {
    out[dir] = await operatorRunSpec(
      client,
      RELEASE_NAMESPACE,
      `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/name=${alias}`,
    );
  }
  return out as Record<OperatorDir, OperatorRunSpec>;
}
