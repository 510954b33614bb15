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

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

interface DeploymentShape extends KubeObject {
  spec: {
    template: { spec: { serviceAccountName?: string; containers: { args?: string[]; env?: EnvVar[] }[] } };
  };
}

/** How the chart runs an operator: what the local process copies, so it runs as the Deployment would. */
export interface OperatorRunSpec {
  serviceAccount: { namespace: string; name: string };
  args: string[];
  env: Record<string, string>;
}

/** The container's env, with downward-API fields resolved as they would be for the chart's pod. */
function resolveEnv(vars: EnvVar[], namespace: string, podName: string): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.namespace': namespace, 'metadata.name': podName };
  const env: Record<string, string> = {};
  for (const v of vars) {
    const value = v.value ?? (v.valueFrom?.fieldRef ? fields[v.valueFrom.fieldRef.fieldPath] : undefined);
    if (value !== undefined) env[v.name] = value;
  }
  return env;
}

/** Each operator's Deployment from the umbrella chart: its ServiceAccount, container args and env. */
export async function operatorRunSpecs(client: KubeClient): Promise<Record<OperatorDir, OperatorRunSpec>> {
  const list = await client.list<DeploymentShape>(Kinds.Deployment, {
    namespace: RELEASE_NAMESPACE,
    labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
  });
  const out: Partial<Record<OperatorDir, OperatorRunSpec>> = {};
  for (const [dir, alias] of Object.entries(chartAliases) as [OperatorDir, string][]) {
    const dep = list.items.find((d) => d.metadata.labels?.['app.kubernetes.io/name'] === alias);
    const pod = dep?.spec.template.spec;
    const container = pod?.containers[0];
    if (!dep || !pod?.serviceAccountName || !container) {
      throw new Error(`the umbrella chart created no operator Deployment for ${alias}`);
    }
    out[dir] = {
      serviceAccount: { namespace: RELEASE_NAMESPACE, name: pod.serviceAccountName },
      args: container.args ?? [],
      env: resolveEnv(container.env ?? [], RELEASE_NAMESPACE, `${dep.metadata.name}-local`),
    };
  }
  return out as Record<OperatorDir, OperatorRunSpec>;
}
