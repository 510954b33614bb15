import { ApiError } from '../client/errors.js';
import type { KubeObject } from '../client/types.js';

/**
 * Whether `image` can be a reference a runtime pulls: no whitespace or control character (the API
 * server accepts them; the kubelet then reports InvalidImageName forever). The finer grammar
 * (lower-case repositories, tag charset) is left to the runtime: test and mirror registries bend it.
 * An empty image is left to the API server.
 */
export const isValidImageReference = (image: string): boolean =>
  ![...image].some((c) => /\s/.test(c) || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

interface PodSpecLike {
  containers?: { image?: string }[];
  initContainers?: { image?: string }[];
}

/** The pod spec of a workload object and its field path (Pod, Deployment/Job/DaemonSet/StatefulSet/ReplicaSet, CronJob). */
function podSpecOf(obj: KubeObject): { spec: PodSpecLike; path: string } | undefined {
  const spec = (obj as { spec?: Record<string, unknown> }).spec;
  if (!spec) return undefined;
  if (Array.isArray(spec['containers'])) return { spec: spec as PodSpecLike, path: 'spec' };
  const template = (spec['template'] as { spec?: PodSpecLike } | undefined)?.spec;
  if (template) return { spec: template, path: 'spec.template.spec' };
  const job = (spec['jobTemplate'] as { spec?: { template?: { spec?: PodSpecLike } } } | undefined)?.spec
    ?.template?.spec;
  if (job) return { spec: job, path: 'spec.jobTemplate.spec.template.spec' };
  return undefined;
}

/**
 * Refuses, before it is sent, a workload whose container image no runtime can pull (e.g. one with a
 * space): the API server accepts it and its pods then wait in InvalidImageName forever, so the
 * owner would only ever say "still running". Thrown as the API server's own 422 Invalid (no request
 * was made), naming the object and the field, so it reads like every other refusal.
 */
export function checkImageReferences(kind: string, obj: KubeObject): void {
  const found = podSpecOf(obj);
  if (!found) return;
  const causes: { type: string; field: string; message: string }[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    (found.spec[list] ?? []).forEach((c, i) => {
      if (typeof c.image === 'string' && !isValidImageReference(c.image)) {
        causes.push({
          type: 'FieldValueInvalid',
          field: `${found.path}.${list}[${i}].image`,
          message: `Invalid value: "${c.image}": not a valid image reference (no runtime can pull it)`,
        });
      }
    });
  }
  if (causes.length === 0) return;
  const name = obj.metadata.name ?? '';
  throw new ApiError({
    code: 422,
    reason: 'Invalid',
    message: `${kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
    details: { kind, name, causes },
  });
}
