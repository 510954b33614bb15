import { ConditionType } from '@stackops/lib-common/conditions';
import { checkSpecFirst, secretKeyProblem } from '@stackops/lib-common/pipeline';
import type { PlacementAPI } from '../../api/kinds.js';
import type { PlacementApiPass } from '../context.js';
import { checkInputSecret } from './check-input-secret.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Every error of a PlacementAPI's spec that needs no other object, each naming its field. The CRD
 * refuses them; this covers objects stored before its rules existed.
 */
export function placementSpecProblems(
  spec: Pick<PlacementAPI['spec'], 'passwordSelectors' | 'networkAttachments' | 'networkAttachents'>,
): string[] {
  const problems: string[] = [];
  for (const [selector, key] of Object.entries(spec.passwordSelectors ?? {})) {
    const problem = key === undefined ? undefined : secretKeyProblem(key);
    if (problem) problems.push(`spec.passwordSelectors.${selector}: Secret key ${problem}`);
  }
  for (const field of ['networkAttachments', 'networkAttachents'] as const) {
    (spec[field] ?? []).forEach((name, i) => {
      if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
        problems.push(
          `spec.${field}[${i}]: "${name}" is no NetworkAttachmentDefinition name (a DNS-1123 subdomain)`,
        );
    });
  }
  return problems;
}

/** The spec's own errors first, all at once, with what the input Secret lacks beside them (InputReady). */
export const checkSpec = checkSpecFirst<PlacementAPI, PlacementApiPass>({
  problems: (ctx) => placementSpecProblems(ctx.cr.spec),
  condition: ConditionType.InputReady,
  dependencies: [checkInputSecret],
});
