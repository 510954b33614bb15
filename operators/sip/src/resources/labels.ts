export type ServiceComponent = 'loadbalancer' | 'jumphost' | 'auth';

/** Labels on every object of a service instance; the first four also select its pods (upstream's set). */
export function instanceLabels(
  component: ServiceComponent,
  appName: string,
  instance: string,
): Record<string, string> {
  return {
    'app.kubernetes.io/part-of': 'sip',
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/name': appName,
    'app.kubernetes.io/instance': instance,
  };
}

/** Marks what this operator created, so it can find and prune objects a spec no longer asks for. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'stackops-sip-operator';
