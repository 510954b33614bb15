import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { type SecretObject, secretHash, secretValue, stableHash } from '@stackops/lib-common/objects';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import {
  buildFederationSecret,
  FEDERATION_CONFIG_KEY,
  FederationConfigError,
  federationFiles,
} from '../../../resources/federation.js';
import { applyChild } from '../apply.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

/**
 * `federatedRealmConfig`: the named Secret's `federation-config.json` (file name → JSON content)
 * becomes Secret `keystone-multirealm-federation-secret`, one key per file, mounted file by file
 * into the API pods (kolla copies them to /var/lib/httpd/metadata/). Both Secrets' hashes are
 * inputs. A missing Secret or key, or content that is not a JSON object, is ServiceConfigReady
 * False naming the field and the Secret.
 */
export async function ensureFederation(ctx: KeystoneApiPass): Promise<StepResult> {
  const name = ctx.spec.federatedRealmConfig;
  ctx.federationFilenames = [];
  if (!name) return undefined;
  const namespace = ctx.cr.metadata.namespace ?? '';
  const source = ctx.cache.get<SecretObject>(Kinds.Secret, { name, namespace });
  const fail = (message: string) => {
    ctx.conditions.markError(ConditionType.ServiceConfigReady, message);
    ctx.event('Warning', 'FederatedRealmConfig', message);
    return stop(RECHECK_AFTER_MS);
  };
  if (!source) return fail(`Secret ${name} (spec.federatedRealmConfig) not found`);
  const json = secretValue(source, FEDERATION_CONFIG_KEY);
  if (json === undefined)
    return fail(`key ${FEDERATION_CONFIG_KEY} not found in Secret ${name} (spec.federatedRealmConfig)`);
  let files: ReturnType<typeof federationFiles>;
  try {
    files = federationFiles(json, name);
  } catch (err) {
    if (err instanceof FederationConfigError) return fail(err.message);
    throw err;
  }
  const secret = buildFederationSecret(ctx.cr, files.data) as SecretObject;
  await applyChild(ctx, Kinds.Secret, secret);
  ctx.inputs[name] = stableHash(json);
  ctx.inputs[secret.metadata.name ?? ''] = secretHash(secret);
  ctx.federationFilenames = files.filenames;
  return undefined;
}
