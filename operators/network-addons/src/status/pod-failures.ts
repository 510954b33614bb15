import type { KubeObject } from '@stackops/lib-common/client';
import { labelMatcher, type Predicate } from '@stackops/lib-common/runtime';

interface ContainerStatus {
  name: string;
  ready?: boolean;
  state?: { waiting?: { reason?: string } };
}

interface PodStatus {
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
}

/**
 * Waiting reasons that do not clear by waiting: the image cannot be pulled, the container keeps
 * crashing, or its configuration cannot be built. `ContainerCreating` and `PodInitializing` are a
 * normal start and stay Progressing.
 */
const FAILING_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreStartHookError',
  'PostStartHookError',
]);

/** The Degraded reason while a component's pods fail (not an upstream reason: upstream stays Progressing). */
export const PODS_FAILING_REASON = 'PodsFailing';

const statusesOf = (pod: KubeObject): ContainerStatus[] => {
  const s = (pod['status'] ?? {}) as PodStatus;
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
};

const failingContainer = (pod: KubeObject): { name: string; reason: string } | undefined => {
  for (const c of statusesOf(pod)) {
    const reason = c.state?.waiting?.reason;
    if (reason && FAILING_REASONS.has(reason)) return { name: c.name, reason };
  }
  return undefined;
};

const selectorOf = (workload: KubeObject): Record<string, string> | undefined =>
  (workload['spec'] as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector
    ?.matchLabels;

/**
 * One line per tracked DaemonSet/Deployment with a failing pod: the workload, the first such pod
 * (by name, so the line is stable) and its container's waiting reason. Pods are matched by the
 * workload's `matchLabels` in its namespace (the rendered workloads select by labels only).
 */
export function podFailures(workloads: readonly KubeObject[], pods: readonly KubeObject[]): string[] {
  const lines: string[] = [];
  for (const w of workloads) {
    const selector = selectorOf(w);
    if (!selector || Object.keys(selector).length === 0) continue;
    const matches = labelMatcher(selector);
    const failing = pods
      .filter((p) => p.metadata.namespace === w.metadata.namespace && matches(p.metadata.labels))
      .map((p) => ({ pod: p.metadata.name ?? '', container: failingContainer(p) }))
      .filter((f) => f.container !== undefined)
      .sort((a, b) => (a.pod < b.pod ? -1 : 1)); // by code unit: no ICU collator in the process
    const first = failing[0];
    if (!first?.container) continue;
    lines.push(
      `${w.kind} "${w.metadata.namespace}/${w.metadata.name}": pod "${first.pod}" container "${first.container.name}" is waiting: ${first.container.reason}`,
    );
  }
  return lines;
}

const podSignature = (pod: KubeObject): string =>
  statusesOf(pod)
    .map((c) => `${c.name}:${c.ready === true}:${c.state?.waiting?.reason ?? ''}`)
    .join(',');

/** Pod events that may change what `podFailures` says: adds, deletes, and a container's ready flag or waiting reason. */
export const podStateChanged: Predicate = (e) =>
  e.type !== 'update' || podSignature(e.old) !== podSignature(e.obj);
