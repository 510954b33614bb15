import type { KubeObject } from '@stackops/lib-common/client';
import { APPLIED_CONFIG_KEY, APPLIED_CONFIG_PREFIX } from '../api/constants.js';
import type { FilledSpec } from '../network/network.js';

/** `cluster-networks-addons-operator-applied-<cr name>` (upstream's name, typo included). */
export const appliedConfigName = (crName: string): string => `${APPLIED_CONFIG_PREFIX}${crName}`;

/** The ConfigMap remembering the last applied spec with its defaults; owned by the CR, so it goes with it. */
export function appliedConfigMap(crName: string, namespace: string, spec: FilledSpec): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: appliedConfigName(crName), namespace },
    data: { [APPLIED_CONFIG_KEY]: JSON.stringify(spec) },
  };
}

/** The previously applied spec, or undefined when there is none; throws when its content is unreadable. */
export function readAppliedConfig(cm: KubeObject | undefined): FilledSpec | undefined {
  const text = (cm?.['data'] as Record<string, string> | undefined)?.[APPLIED_CONFIG_KEY];
  if (text === undefined) return undefined;
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`the applied configuration is not a JSON object`);
  }
  return parsed as FilledSpec;
}
