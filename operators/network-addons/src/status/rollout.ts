import type { KubeObject } from '@stackops/lib-common/client';
import type { DeployedContainer } from '../api/network-addons-config.js';

interface DaemonSetStatus {
  desiredNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  updatedNumberScheduled?: number;
  observedGeneration?: number;
}

interface DeploymentStatus {
  replicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  updatedReplicas?: number;
  observedGeneration?: number;
}

const ref = (obj: KubeObject) => `"${obj.metadata.namespace}/${obj.metadata.name}"`;

const beingProcessed = (obj: KubeObject, observed: number | undefined): string | undefined => {
  const generation = obj.metadata.generation ?? 0;
  return generation > (observed ?? 0)
    ? `${obj.kind} ${ref(obj)} update is being processed (generation ${generation}, observed generation ${observed ?? 0})`
    : undefined;
};

/** Why a DaemonSet is not rolled out yet, or undefined when it is (upstream's messages, first match). */
export function daemonSetProgress(ds: KubeObject): string | undefined {
  const s = (ds['status'] ?? {}) as DaemonSetStatus;
  const desired = s.desiredNumberScheduled ?? 0;
  const updated = s.updatedNumberScheduled ?? 0;
  if ((s.numberUnavailable ?? 0) > 0) {
    return `DaemonSet ${ref(ds)} is not available (awaiting ${s.numberUnavailable} nodes)`;
  }
  if ((s.numberAvailable ?? 0) === 0 && desired !== 0) {
    return `DaemonSet ${ref(ds)} is not yet scheduled on any nodes`;
  }
  if (updated < desired)
    return `DaemonSet ${ref(ds)} update is rolling out (${updated} out of ${desired} updated)`;
  return beingProcessed(ds, s.observedGeneration);
}

/**
 * Why a Deployment is not rolled out yet, or undefined when it is. Beyond upstream's checks, pods
 * of an older template still serving (updatedReplicas < spec.replicas) count as rolling out, so a
 * surge rollout is not reported Available before its new pods are.
 */
export function deploymentProgress(dep: KubeObject): string | undefined {
  const s = (dep['status'] ?? {}) as DeploymentStatus;
  const wanted = ((dep['spec'] as { replicas?: number } | undefined)?.replicas ?? 1) as number;
  if ((s.unavailableReplicas ?? 0) > 0) {
    return `Deployment ${ref(dep)} is not available (awaiting ${s.unavailableReplicas} nodes)`;
  }
  if ((s.availableReplicas ?? 0) === 0 && wanted !== 0) {
    return `Deployment ${ref(dep)} is not yet scheduled on any nodes`;
  }
  const processing = beingProcessed(dep, s.observedGeneration);
  if (processing) return processing;
  const updated = s.updatedReplicas ?? 0;
  if (updated < wanted)
    return `Deployment ${ref(dep)} update is rolling out (${updated} out of ${wanted} updated)`;
  return undefined;
}

/** Progress messages of the tracked workloads: DaemonSets first, then Deployments (upstream order). */
export function rolloutMessages(workloads: readonly KubeObject[]): string[] {
  const daemonSets = workloads.filter((w) => w.kind === 'DaemonSet').map(daemonSetProgress);
  const deployments = workloads.filter((w) => w.kind === 'Deployment').map(deploymentProgress);
  return [...daemonSets, ...deployments].filter((m): m is string => m !== undefined);
}

/** Init containers first, then containers, of every tracked DaemonSet and Deployment in render order. */
export function containersOf(workloads: readonly KubeObject[]): DeployedContainer[] {
  return workloads.flatMap((w) => {
    const pod = (w['spec'] as { template?: { spec?: Record<string, { name: string; image: string }[]> } })
      .template?.spec;
    return [...(pod?.['initContainers'] ?? []), ...(pod?.['containers'] ?? [])].map((c) => ({
      parentKind: w.kind ?? '',
      parentName: w.metadata.name ?? '',
      name: c.name,
      image: c.image,
    }));
  });
}
