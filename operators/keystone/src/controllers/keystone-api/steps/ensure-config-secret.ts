import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { type SecretObject, secretHash, secretValue } from '@stackops/lib-common/objects';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { buildConfigDataSecret, buildScriptsSecret } from '../../../resources/config-data-secret.js';
import { keystoneConfigData } from '../../../templates/config-files.js';
import { applyChild } from '../apply.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS, specForPods } from '../context.js';

/**
 * The `<cr>-scripts` (empty, as upstream's) and `<cr>-config-data` Secrets (keystone.conf, httpd.conf, custom.conf, my.cnf, kolla config,
 * the customConfigSecret's `httpd_custom_<endpoint>_<key>` files, defaultConfigOverwrite files).
 * Their content hashes are inputs. A missing customConfigSecret is an error that names it
 * (its creation brings the reconcile back).
 */
export async function ensureConfigSecret(ctx: KeystoneApiPass): Promise<StepResult> {
  const custom = ctx.spec.httpdCustomization?.customConfigSecret;
  let httpdCustomFiles: Record<string, string> = {};
  if (custom) {
    const found = ctx.cache.get<SecretObject>(Kinds.Secret, {
      name: custom,
      namespace: ctx.cr.metadata.namespace ?? '',
    });
    if (!found) {
      ctx.conditions.markError(
        ConditionType.ServiceConfigReady,
        `Secret ${custom} (spec.httpdCustomization.customConfigSecret) not found`,
      );
      return stop(RECHECK_AFTER_MS);
    }
    httpdCustomFiles = Object.fromEntries(
      Object.keys({ ...found.data, ...found.stringData }).map((k) => [k, secretValue(found, k) ?? '']),
    );
  }
  const data = keystoneConfigData(ctx.cr, specForPods(ctx), {
    httpdCustomFiles,
    databaseHostname: ctx.status.databaseHostname ?? '',
    databasePassword: ctx.passwords?.database ?? '',
    ...(ctx.databaseConnection ? { databaseUser: ctx.databaseConnection.user } : {}),
    databaseTls: Boolean(ctx.databaseConnection?.tlsSupport && ctx.spec.tls?.caBundleSecretName),
    memcachedServers: ctx.memcachedServers ?? '',
    memcachedServersWithInet: ctx.memcached?.serversWithInet ?? ctx.memcachedServers ?? '',
    memcachedTls: ctx.memcached?.tls ?? false,
    ...(ctx.notifications ? { notifications: ctx.notifications } : {}),
    endpoints: ctx.status.apiEndpoints,
  });
  const secrets = [
    buildScriptsSecret(ctx.cr),
    buildConfigDataSecret(ctx.cr, ctx.spec, data),
  ] as SecretObject[];
  try {
    // Independent objects: one round-trip for both.
    await Promise.all(secrets.map((secret) => applyChild(ctx, Kinds.Secret, secret)));
  } catch (err) {
    ctx.conditions.markError(ConditionType.ServiceConfigReady, err);
    throw err;
  }
  for (const secret of secrets) ctx.inputs[secret.metadata.name ?? ''] = secretHash(secret);
  return undefined;
}
