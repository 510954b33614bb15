import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { type SecretObject, secretHash } from '@stackops/lib-common/objects';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildConfigDataSecret } from '../../../resources/config-data-secret.js';
import { keystoneConfigData } from '../../../templates/config-files.js';
import { applyChild } from '../apply.js';
import type { KeystoneApiPass } from '../context.js';

/**
 * The `<cr>-config-data` Secret (keystone.conf, httpd.conf, custom.conf, my.cnf, kolla config,
 * defaultConfigOverwrite files). Its content hash is one of the inputs.
 */
export async function ensureConfigSecret(ctx: KeystoneApiPass): Promise<StepResult> {
  const data = keystoneConfigData(ctx.cr, ctx.spec, {
    databaseHostname: ctx.status.databaseHostname ?? '',
    databasePassword: ctx.passwords?.database ?? '',
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
