import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';

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

/** How a chart runs its operator: what a local process copies, so it runs as the Deployment would. */
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

/** The operator Deployment a chart created (found by label): its ServiceAccount, container args and env. */
export async function operatorRunSpec(
  client: KubeClient,
  namespace: string,
  labelSelector: string,
): Promise<OperatorRunSpec> {
  const list = await client.list<DeploymentShape>(Kinds.Deployment, { namespace, labelSelector });
  const dep = list.items[0];
  const pod = dep?.spec.template.spec;
  const container = pod?.containers[0];
  if (!dep || !pod?.serviceAccountName || !container) {
    throw new Error(`no operator Deployment with a ServiceAccount matches ${labelSelector} in ${namespace}`);
  }
  return {
    serviceAccount: { namespace, name: pod.serviceAccountName },
    args: container.args ?? [],
    env: resolveEnv(container.env ?? [], namespace, `${dep.metadata.name}-local`),
  };
}
