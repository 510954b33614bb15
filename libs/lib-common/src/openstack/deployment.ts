import type { KubeObject } from '../client/types.js';
import { AppSelector } from './labels.js';
import { withPullPolicyDefaults } from './pod.js';

type Json = Record<string, unknown>;

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Json;
}

/** A container as plain JSON, with the fields the builders touch typed. */
export interface Container extends Json {
  name: string;
  image?: string;
  env?: EnvVar[];
}

/** The env var whose change rolls the pods when an input changes. */
export const CONFIG_HASH_ENV = 'CONFIG_HASH';

export interface DeploymentInput {
  name: string;
  namespace: string;
  /** Labels of the Deployment object itself (default: `selector`). */
  labels?: Record<string, string>;
  /** Pod labels and the (immutable) selector, e.g. `serviceLabels('keystone', cr.name)`. */
  selector: Record<string, string>;
  /** Pod template annotations, e.g. the multus networks annotation. */
  podAnnotations?: Record<string, string>;
  replicas: number;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Json[];
  serviceAccountName?: string;
  nodeSelector?: Record<string, string> | undefined;
  /** Put into every container as `CONFIG_HASH`. */
  configHash?: string;
  /**
   * Pod affinity. Default: spread pods of the same `service` label across nodes (preferred
   * anti-affinity, weight 100, upstream `DistributePods`). `null` = no affinity.
   */
  affinity?: Json | null;
  topologySpreadConstraints?: Json[];
  securityContext?: Json;
  /** Anything else for the pod spec (applied last). */
  podSpec?: Json;
}

/** Upstream `DistributePods`: prefer nodes not already running a pod whose `key` label is in `values`. */
export function distributePods(key: string, values: string[], topologyKey = 'kubernetes.io/hostname'): Json {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchExpressions: [{ key, operator: 'In', values }] },
            topologyKey,
          },
        },
      ],
    },
  };
}

/** Sets (or replaces) env vars on a container, keeping the other variables in place; new ones go last, sorted by name. */
export function withEnv(container: Container, vars: Readonly<Record<string, string>>): Container {
  const env = [...(container.env ?? [])];
  for (const name of Object.keys(vars).sort()) {
    const entry: EnvVar = { name, value: vars[name] ?? '' };
    const i = env.findIndex((e) => e.name === name);
    if (i >= 0) env[i] = entry;
    else env.push(entry);
  }
  return { ...container, env };
}

export interface HttpProbeInput {
  path: string;
  port: number | string;
  scheme?: 'HTTP' | 'HTTPS';
  timeoutSeconds?: number;
  periodSeconds?: number;
  initialDelaySeconds?: number;
}

/** An HTTP GET probe with upstream's API defaults (timeout 30 s, period 30 s, initial delay 5 s). */
export function httpProbe(p: HttpProbeInput): Json {
  return {
    httpGet: { path: p.path, port: p.port, scheme: p.scheme ?? 'HTTP' },
    timeoutSeconds: p.timeoutSeconds ?? 30,
    periodSeconds: p.periodSeconds ?? 30,
    initialDelaySeconds: p.initialDelaySeconds ?? 5,
  };
}

/**
 * The API container's preStop: a terminating pod keeps serving for 5 s while the Service drops it
 * from its endpoints (kube-proxy on every node), so a drain or rollout does not cut the requests
 * still routed to it. An exec of `sleep` (in every service image), not the `sleep` action, which
 * older API servers do not know.
 */
export const API_PRE_STOP: Json = { preStop: { exec: { command: ['/bin/sleep', '5'] } } };

/** A Deployment (apps/v1) as plain JSON, ready for `applyOwned`. */
export function buildDeployment(d: DeploymentInput): KubeObject {
  const containers = d.containers.map((c) =>
    d.configHash ? withEnv(c, { [CONFIG_HASH_ENV]: d.configHash }) : c,
  );
  const service = d.selector[AppSelector];
  const affinity =
    d.affinity === null
      ? undefined
      : (d.affinity ?? (service ? distributePods(AppSelector, [service]) : undefined));
  const podSpec = withPullPolicyDefaults({
    ...(d.serviceAccountName ? { serviceAccountName: d.serviceAccountName } : {}),
    ...(d.nodeSelector && Object.keys(d.nodeSelector).length > 0 ? { nodeSelector: d.nodeSelector } : {}),
    ...(affinity ? { affinity } : {}),
    ...(d.topologySpreadConstraints ? { topologySpreadConstraints: d.topologySpreadConstraints } : {}),
    ...(d.securityContext ? { securityContext: d.securityContext } : {}),
    ...(d.initContainers ? { initContainers: d.initContainers } : {}),
    containers,
    ...(d.volumes ? { volumes: d.volumes } : {}),
    ...d.podSpec,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: d.name, namespace: d.namespace, labels: { ...(d.labels ?? d.selector) } },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { ...d.selector } },
      template: {
        metadata: {
          labels: { ...d.selector },
          ...(d.podAnnotations && Object.keys(d.podAnnotations).length > 0
            ? { annotations: { ...d.podAnnotations } }
            : {}),
        },
        spec: podSpec,
      },
    },
  };
}

interface DeploymentStatusView {
  metadata: { generation?: number };
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    observedGeneration?: number;
  };
}

/**
 * Upstream `deployment.IsReady`: the controller observed the current generation and every
 * desired replica is updated and ready, with no extra old replicas left (true for 0 replicas
 * once observed).
 */
export function isDeploymentReady(obj: KubeObject): boolean {
  const d = obj as unknown as DeploymentStatusView;
  const want = d.spec?.replicas;
  if (want === undefined) return false;
  const s = d.status ?? {};
  return (
    d.metadata.generation === s.observedGeneration &&
    want === (s.readyReplicas ?? 0) &&
    want === (s.updatedReplicas ?? 0) &&
    (s.replicas ?? 0) === (s.readyReplicas ?? 0)
  );
}

/** Ready replicas, counted only once the controller observed the current generation (else undefined). */
export function observedReadyReplicas(obj: KubeObject): number | undefined {
  const d = obj as unknown as DeploymentStatusView;
  if (d.metadata.generation === undefined || d.metadata.generation !== d.status?.observedGeneration)
    return undefined;
  return d.status?.readyReplicas ?? 0;
}
