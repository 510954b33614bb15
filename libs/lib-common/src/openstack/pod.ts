import { isPlainObject } from '../client/json.js';

type PodSpec = Record<string, unknown>;

/** A copy of a pod spec whose containers and init containers without imagePullPolicy get IfNotPresent (upstream's default). */
export function withPullPolicyDefaults<T extends PodSpec>(spec: T): T {
  const fill = (list: unknown) =>
    Array.isArray(list)
      ? list.map((c) =>
          isPlainObject(c) && !c['imagePullPolicy'] ? { ...c, imagePullPolicy: 'IfNotPresent' } : c,
        )
      : list;
  const out: PodSpec = { ...spec };
  if (spec['containers'] !== undefined) out['containers'] = fill(spec['containers']);
  if (spec['initContainers'] !== undefined) out['initContainers'] = fill(spec['initContainers']);
  return out as T;
}
