import { Kinds } from '@stackops/lib-common/client';
import type { SecretObject } from '@stackops/lib-common/objects';
import { markTlsInputCondition, type TlsApiSpec, verifyTlsInputs } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type PlacementApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * `tls` (upstream's order: after the config, before the input hash): the CA bundle Secret has
 * `tls-ca-bundle.pem` and each TLS endpoint's Secret has `tls.crt` and `tls.key`. What is missing
 * is named in TLSInputReady (a missing key also in a Warning Event) and the pass waits; the Secret
 * watch brings it back when they appear. Their content hashes join the inputs, so a new
 * certificate or CA rolls the API pods while the Jobs stay (their pod specs do not change).
 */
export async function checkTlsInput(ctx: PlacementApiPass): Promise<StepResult> {
  const namespace = ctx.cr.metadata.namespace ?? '';
  const verdict = verifyTlsInputs(ctx.cr.spec.tls, (name) =>
    ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace }),
  );
  markTlsInputCondition(ctx.conditions, verdict);
  if (!verdict.ready) {
    if (verdict.problem === 'missingKey')
      ctx.event('Warning', 'TLSInputError', `TLSInput is missing: ${verdict.missing.join(', ')}`);
    return stop(RECHECK_AFTER_MS);
  }
  Object.assign(ctx.inputs, verdict.hashes);
  return undefined;
}

/** The Secrets `tls` names (for the controller's watch). */
export const tlsSecretNames = (tls: TlsApiSpec | undefined): string[] =>
  [tls?.caBundleSecretName, tls?.api?.internal?.secretName, tls?.api?.public?.secretName].filter(
    (n): n is string => !!n,
  );
