import { ConditionStatus, ConditionType } from './catalog.js';

/** The parts of a custom resource that generation tracking looks at. */
export interface GenerationTracked {
  metadata: { generation?: number };
  status?:
    | { observedGeneration?: number; conditions?: ReadonlyArray<{ type: string; status: string }> }
    | undefined;
}

/** The value controllers write to `status.observedGeneration` at the start of a reconcile. */
export function observedGenerationOf(obj: { metadata: { generation?: number } }): number | undefined {
  return obj.metadata.generation;
}

/** The controller has seen the current spec: `status.observedGeneration === metadata.generation`. */
export function isGenerationObserved(obj: GenerationTracked): boolean {
  return obj.metadata.generation !== undefined && obj.status?.observedGeneration === obj.metadata.generation;
}

/**
 * How a consumer decides a sub-resource is done (upstream's rule, as openstack-operator applies it
 * to KeystoneAPI): the current generation was observed and Ready is True. A Ready left over from
 * an older spec does not count.
 */
export function isReadyAtCurrentGeneration(obj: GenerationTracked): boolean {
  if (!isGenerationObserved(obj)) return false;
  return (
    obj.status?.conditions?.some(
      (c) => c.type === ConditionType.Ready && c.status === ConditionStatus.True,
    ) ?? false
  );
}
