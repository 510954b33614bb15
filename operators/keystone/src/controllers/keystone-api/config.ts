import { ConditionType } from '@stackops/lib-common/conditions';
import { inputHash, Kinds, type SecretObject, secretHash } from '@stackops/lib-common/resources';
import { buildConfigDataSecret, keystoneConfigData } from '../../resources/config-data.js';
import { applyChild } from './apply.js';
import { SOON_MS, type StepContext, type StepResult } from './context.js';

/**
 * Step 4: the `<cr>-config-data` Secret (keystone.conf, httpd.conf, custom.conf, my.cnf, kolla
 * config, defaultConfigOverwrite files). Its content hash is one of the inputs.
 */
export async function ensureConfigSecret(ctx: StepContext): Promise<StepResult> {
  const data = keystoneConfigData(ctx.cr, ctx.spec, {
    databaseHostname: ctx.status.databaseHostname ?? '',
    databasePassword: ctx.secrets?.database ?? '',
    memcachedServers: ctx.memcachedServers ?? '',
    endpoints: ctx.status.apiEndpoints,
  });
  let secret: SecretObject;
  try {
    secret = buildConfigDataSecret(ctx.cr, ctx.spec, data) as SecretObject;
    await applyChild(ctx, Kinds.Secret, secret);
  } catch (err) {
    ctx.conditions.markError(ConditionType.ServiceConfigReady, err);
    throw err;
  }
  ctx.inputs[secret.metadata.name ?? ''] = secretHash(secret);
  return undefined;
}

/**
 * Step 6: the input hash over every input (upstream's pattern): when it changed, store it and end
 * this pass, so the next one rolls the pods with a hash that is stable.
 */
export async function checkInputHash(ctx: StepContext): Promise<StepResult> {
  const { hash, changed, hashes } = inputHash(ctx.status.hash, ctx.inputs);
  ctx.configHash = hash;
  if (changed) {
    ctx.status.hash = hashes;
    return { stop: true, requeueAfterMs: SOON_MS };
  }
  ctx.conditions.markTrue(ConditionType.ServiceConfigReady);
  return undefined;
}
