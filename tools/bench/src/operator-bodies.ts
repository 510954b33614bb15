import type { KindRef, KubeClient, KubeObject } from '@stackops/lib-common/client';

/**
 * The objects an operator wrote for one instance, as the API server keeps them, keyed
 * `Kind/name`: what the baseline runs create in place of their placeholders, so the control plane
 * alone handles the same pod templates, config files and specs (a Job pod of four lines costs the
 * API server, the controllers and kwok far less at every step than the operand's own).
 */
export interface OperatorBodies {
  /** The namespace they were read from (rewritten to each baseline namespace). */
  namespace: string;
  objects: Map<string, KubeObject>;
}

export const bodyKey = (kind: KindRef, name: string): string => `${kind.kind}/${name}`;

/** Reads every staged object of `ns` that exists; undefined when none does. */
export async function readOperatorBodies(
  client: KubeClient,
  ns: string,
  staged: readonly { kind: KindRef; object: KubeObject }[],
): Promise<OperatorBodies | undefined> {
  const objects = new Map<string, KubeObject>();
  for (const { kind, object } of staged) {
    const name = object.metadata.name ?? '';
    const found = await client.get<KubeObject>(kind, { namespace: ns, name });
    if (found) objects.set(bodyKey(kind, name), found);
  }
  return objects.size ? { namespace: ns, objects } : undefined;
}

/** Labels the Job controller adds to a Job and its template (refused when a client sets them). */
const JOB_CONTROLLER_LABELS = [
  'controller-uid',
  'batch.kubernetes.io/controller-uid',
  'job-name',
  'batch.kubernetes.io/job-name',
];
/** Annotations a controller writes on the object it manages. */
const CONTROLLER_ANNOTATIONS = ['deployment.kubernetes.io/revision'];

const without = (record: Record<string, string> | undefined, keys: readonly string[]) => {
  if (!record) return undefined;
  const left = Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
  return Object.keys(left).length ? left : undefined;
};

/**
 * `obj` as a client would create it in `toNs`: spec and data kept, what the API server and the
 * controllers fill in dropped (identity, owner references, finalizers, status, a Service's
 * allocated ClusterIPs, a Job's generated selector and labels), the namespace's name rewritten
 * where it stands alone (`keystone-internal.<ns>.svc`, a RoleBinding's subject).
 */
export function asBaselineObject(obj: KubeObject, fromNs: string, toNs: string): KubeObject {
  const { metadata, status: _status, ...rest } = obj as KubeObject & { status?: unknown };
  const labels = without(metadata.labels, JOB_CONTROLLER_LABELS);
  const annotations = without(metadata.annotations, CONTROLLER_ANNOTATIONS);
  const copy: KubeObject & { spec?: Record<string, unknown> } = {
    ...rest,
    metadata: {
      name: metadata.name ?? '',
      namespace: toNs,
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
  };
  const spec = copy.spec ? structuredClone(copy.spec) : undefined;
  if (spec && obj.kind === 'Service') {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
  }
  if (spec && obj.kind === 'Job') {
    delete spec['selector'];
    const template = spec['template'] as { metadata?: { labels?: Record<string, string> } } | undefined;
    if (template?.metadata) {
      const left = without(template.metadata.labels, JOB_CONTROLLER_LABELS);
      if (left) template.metadata.labels = left;
      else delete template.metadata.labels;
    }
  }
  if (spec) copy.spec = spec;
  const escaped = fromNs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const alone = new RegExp(`(?<![A-Za-z0-9-])${escaped}(?![A-Za-z0-9-])`, 'g');
  return JSON.parse(JSON.stringify(copy).replace(alone, toNs)) as KubeObject;
}
