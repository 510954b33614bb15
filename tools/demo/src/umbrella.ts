import { resolve } from 'node:path';
import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/resources';
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
 * umbrella chart, waiting for the operator Deployments (kwok makes their pods Ready).
 */
export async function installUmbrella(helm: string, kubeconfig: string): Promise<void> {
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
    '--wait',
    '--timeout',
    '5m',
  ]);
}

interface DeploymentShape extends KubeObject {
  spec: { template: { spec: { serviceAccountName?: string } } };
}

/** The ServiceAccount each operator's chart gave its Deployment: what the local process impersonates. */
export async function operatorServiceAccounts(
  client: KubeClient,
): Promise<Record<OperatorDir, { namespace: string; name: string }>> {
  const list = await client.list<DeploymentShape>(Kinds.Deployment, {
    namespace: RELEASE_NAMESPACE,
    labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
  });
  const out: Partial<Record<OperatorDir, { namespace: string; name: string }>> = {};
  for (const [dir, alias] of Object.entries(chartAliases) as [OperatorDir, string][]) {
    const dep = list.items.find((d) => d.metadata.labels?.['app.kubernetes.io/name'] === alias);
    const sa = dep?.spec.template.spec.serviceAccountName;
    if (!sa) throw new Error(`the umbrella chart created no Deployment with a ServiceAccount for ${alias}`);
    out[dir] = { namespace: RELEASE_NAMESPACE, name: sa };
  }
  return out as Record<OperatorDir, { namespace: string; name: string }>;
}
