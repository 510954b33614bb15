import { Kinds } from '@stackops/lib-common/client';
import type { SecretObject } from '@stackops/lib-common/objects';
import { markTlsInputCondition, verifyTlsInputs } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * `tls`: the CA bundle Secret has `tls-ca-bundle.pem` and each TLS endpoint's Secret has
 * `tls.crt` and `tls.key`. Missing ones are named in TLSInputReady and the pass waits (the
 * Secrets' watch, or the recheck, brings it back when they appear). Their content hashes join the
 * inputs, so a new certificate or CA rolls the API pods and nothing else re-runs.
 */
export async function checkTlsInput(ctx: KeystoneApiPass): Promise<StepResult> {
  const namespace = ctx.cr.metadata.namespace ?? '';
  // External mode serves nothing itself: only the CA bundle its clients trust is checked (upstream).
  const tls = ctx.spec.externalKeystoneAPI
    ? { caBundleSecretName: ctx.spec.tls?.caBundleSecretName ?? '' }
    : ctx.spec.tls;
  const verdict = verifyTlsInputs(tls, (name) =>
    ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace }),
  );
  markTlsInputCondition(ctx.conditions, verdict);
  if (!verdict.ready) return stop(RECHECK_AFTER_MS);
  Object.assign(ctx.inputs, verdict.hashes);
  return undefined;
}

/** The Secrets `tls` names (for the controller's watch). */
export const tlsSecretNames = (tls: KeystoneApiPass['spec']['tls']): string[] =>
  [tls?.caBundleSecretName, tls?.api?.internal?.secretName, tls?.api?.public?.secretName].filter(
    (n): n is string => !!n,
  );
