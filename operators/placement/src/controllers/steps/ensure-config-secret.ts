import {
  getKeystoneEndpoint,
  getKeystoneRegion,
  type KeystoneAPI,
  KeystoneKinds,
  selectKeystoneAPI,
} from '@stackops/keystone-operator';
import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { databaseClientConfig, databaseConnectionUrl } from '@stackops/lib-common/database';
import { applyOwned, secretHash } from '@stackops/lib-common/objects';
import {
  buildConfigSecret,
  groupLabel,
  ownerLabels,
  TLS_ENDPOINTS,
  tlsEnabled,
} from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { PLACEMENT_DATABASE_NAME, PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import { DEFAULT_API_TIMEOUT } from '../../api/placementapi.js';
import { childNames } from '../../resources/names.js';
import { renderConfigFiles } from '../../templates/config-files.js';
import type { PlacementApiPass } from '../context.js';
import { holdApplicationCredential, readApplicationCredential } from './application-credential.js';

interface KeystoneSettings {
  publicURL: string;
  internalURL: string;
  region: string;
}

/** The namespace's KeystoneAPI and what placement.conf needs from its status, or why it is not usable. */
function keystoneSettings(apis: KeystoneAPI[], namespace: string): KeystoneSettings | Error {
  try {
    const api = selectKeystoneAPI(apis, namespace);
    return {
      publicURL: getKeystoneEndpoint(api, 'public'),
      internalURL: getKeystoneEndpoint(api, 'internal'),
      region: getKeystoneRegion(api),
    };
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * Renders the `<name>-config-data` Secret (placement.conf, custom.conf, my.cnf, httpd.conf with a
 * TLS vhost per endpoint that has a certificate, kolla configs, policy.yaml when given) and the
 * empty `<name>-scripts` Secret, and adds the config's hash to the inputs. A missing KeystoneAPI or
 * endpoint is reported in ServiceConfigReady; the KeystoneAPI watch brings the reconcile back.
 * With `spec.auth.applicationCredentialSecret`, placement.conf logs in with that credential, and
 * placement holds the Secret with its consumer finalizer.
 */
export async function ensureConfigSecret(ctx: PlacementApiPass): Promise<StepResult> {
  const { cr } = ctx;
  const namespace = cr.metadata.namespace!;
  const keystone = keystoneSettings(
    ctx.cache.list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace }),
    namespace,
  );
  if (keystone instanceof Error) {
    ctx.conditions.markError(ConditionType.ServiceConfigReady, keystone.message);
    return stop();
  }
  const credential = readApplicationCredential(ctx);
  if (credential.state === 'problem') return stop();
  const files = renderConfigFiles({
    namespace,
    serviceUser: cr.spec.serviceUser,
    servicePassword: ctx.passwords?.service ?? '',
    applicationCredential:
      credential.state === 'found' ? { id: credential.id, secret: credential.secret } : undefined,
    databaseConnection: databaseConnectionUrl({
      user: ctx.databaseConnection?.user ?? cr.spec.databaseAccount,
      password: ctx.passwords?.database ?? '',
      host: ctx.status.databaseHostname ?? '',
      database: PLACEMENT_DATABASE_NAME,
    }),
    // TLS to the database when it offers TLS and the pods trust a CA bundle (upstream's my.cnf rule).
    databaseClientConfig: databaseClientConfig(
      ctx.databaseConnection?.tlsSupport && cr.spec.tls?.caBundleSecretName ? {} : undefined,
    ),
    keystonePublicURL: keystone.publicURL,
    keystoneInternalURL: keystone.internalURL,
    region: keystone.region,
    apiTimeout: cr.spec.apiTimeout || DEFAULT_API_TIMEOUT,
    tlsEndpoints: TLS_ENDPOINTS.filter((e) => tlsEnabled(cr.spec.tls, e)),
    customServiceConfig: cr.spec.customServiceConfig,
    defaultConfigOverwrite: cr.spec.defaultConfigOverwrite,
  });
  const names = childNames(cr.metadata.name!);
  const name = names.configSecret;
  const labels = ownerLabels(cr, groupLabel(PLACEMENT_SERVICE_NAME));
  const secret = buildConfigSecret({ name, namespace, labels, data: files });
  // Upstream's `<name>-scripts`: placement has no scripts, but the pods mount it (kept for parity).
  const scripts = buildConfigSecret({ name: names.scriptsSecret, namespace, labels, data: {} });
  try {
    await Promise.all(
      [scripts, secret].map((s) =>
        applyOwned(ctx.client, cr, Kinds.Secret, s, {
          current: ctx.cache.get(Kinds.Secret, { name: s.metadata.name!, namespace }) ?? null,
        }),
      ),
    );
  } catch (err) {
    ctx.conditions.markError(
      ConditionType.ServiceConfigReady,
      err instanceof Error ? err.message : String(err),
    );
    throw err;
  }
  ctx.inputs[name] = secretHash(secret as { data?: Record<string, string>; type?: string });
  await holdApplicationCredential(ctx, credential);
  return undefined;
}
