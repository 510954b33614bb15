import type { KubeObject } from '@stackops/lib-common/client';
import type { Placement } from '../api/placement.js';

/** Small builders shared by the component templates, so each template reads like its manifest. */

type Json = Record<string, unknown>;

export const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({
  name,
  ...(namespace ? { namespace } : {}),
  ...(labels ? { labels } : {}),
});

export const serviceAccount = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: meta(name, namespace),
});

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export const clusterRole = (name: string, rules: PolicyRule[]): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: meta(name),
  rules,
});

export const clusterRoleBinding = (
  name: string,
  role: string,
  subject: { name: string; namespace: string },
): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: meta(name),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'ServiceAccount', ...subject }],
});

export const configMap = (
  name: string,
  namespace: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta(name, namespace, labels),
  data,
});

/** nodeSelector / affinity / tolerations of a placement, leaving out the parts it does not set. */
export function placementFields(p: Placement): Json {
  return {
    ...(p.nodeSelector ? { nodeSelector: p.nodeSelector } : {}),
    ...(p.affinity ? { affinity: p.affinity } : {}),
    ...(p.tolerations ? { tolerations: p.tolerations } : {}),
  };
}

export const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

export const configMapEnv = (name: string, configMapName: string, key: string) => ({
  name,
  valueFrom: { configMapKeyRef: { name: configMapName, key } },
});

export const hostPath = (name: string, path: string, type?: string) => ({
  name,
  hostPath: { path, ...(type ? { type } : {}) },
});

export const requests = (cpu: string, memory: string) => ({ requests: { cpu, memory } });

export const httpProbe = (
  path: string,
  port: string | number,
  initialDelaySeconds: number,
  periodSeconds: number,
  scheme?: 'HTTPS',
) => ({
  httpGet: { path, port, ...(scheme ? { scheme } : {}) },
  initialDelaySeconds,
  periodSeconds,
});

/** The restricted container security context (no privilege escalation, no capabilities). */
export const restrictedContainer = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

export const networkPolicy = (name: string, namespace: string, spec: Json): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: meta(name, namespace),
  spec,
});

export const ingressPolicy = (
  name: string,
  namespace: string,
  podSelector: Json,
  ports: Json[],
): KubeObject =>
  networkPolicy(name, namespace, { podSelector, policyTypes: ['Ingress'], ingress: [{ ports }] });

/** Label that lets a pod reach the API server and DNS through the operand namespace's egress policies. */
export const ALLOW_CLUSTER_SERVICES = { 'allow-access-cluster-services': '' };

/** A CRD whose schema the component owns; the operator only installs it (never deletes it). */
export function looseCrd(def: {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  versions: { name: string; storage: boolean; status?: boolean }[];
  shortNames?: string[];
  specSchema?: Json;
}): KubeObject {
  const objectSchema = (withStatus: boolean): Json => ({
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: def.specSchema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      ...(withStatus ? { status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } : {}),
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: meta(`${def.plural}.${def.group}`),
    spec: {
      group: def.group,
      scope: def.scope,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        ...(def.shortNames ? { shortNames: def.shortNames } : {}),
      },
      versions: def.versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        schema: { openAPIV3Schema: objectSchema(v.status ?? false) },
        ...(v.status ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}
