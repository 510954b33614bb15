import {
  getKeystoneEndpoint,
  getKeystoneRegion,
  type KeystoneAPI,
  KeystoneKinds,
  selectKeystoneAPI,
} from '@stackops/keystone-operator';
import { ConditionType } from '@stackops/lib-common/conditions';
import { databaseClientConfig, databaseConnectionUrl } from '@stackops/lib-common/database';
import {
  applyOwned,
  buildConfigSecret,
  groupLabel,
  Kinds,
  ownerLabels,
  secretHash,
} from '@stackops/lib-common/resources';
import { PLACEMENT_DATABASE_NAME, PLACEMENT_SERVICE_NAME } from '../../api/constants.js';
import { childNames } from '../../resources/names.js';
import { renderConfigFiles } from '../../templates/config-files.js';
import { type ReconcileState, type StepIo, type StepResult, stop } from '../state.js';

interface KeystoneSettings {
  publicURL: string;
  internalURL: string;
  region: string;
}

/** The namespace's KeystoneAPI and what placement.conf needs from its status, or why it is not usable. */
export function keystoneSettings(apis: KeystoneAPI[], namespace: string): KeystoneSettings | Error {
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
 * Renders the `<name>-config-data` Secret (placement.conf, custom.conf, my.cnf, httpd.conf, kolla
 * configs, policy.yaml when given) and adds its hash to the inputs. A missing KeystoneAPI or
 * endpoint is reported in ServiceConfigReady; the KeystoneAPI watch brings the reconcile back.
 */
export async function reconcileServiceConfig(s: ReconcileState, io: StepIo): Promise<StepResult> {
  const { cr } = s;
  const namespace = cr.metadata.namespace!;
  const keystone = keystoneSettings(
    io.cache.list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace }),
    namespace,
  );
  if (keystone instanceof Error) {
    s.conditions.markError(ConditionType.ServiceConfigReady, keystone.message);
    return stop();
  }
  const files = renderConfigFiles({
    namespace,
    serviceUser: cr.spec.serviceUser,
    servicePassword: s.passwords?.service ?? '',
    databaseConnection: databaseConnectionUrl({
      user: cr.spec.databaseAccount,
      password: s.passwords?.database ?? '',
      host: s.status.databaseHostname ?? '',
      database: PLACEMENT_DATABASE_NAME,
    }),
    databaseClientConfig: databaseClientConfig(),
    keystonePublicURL: keystone.publicURL,
    keystoneInternalURL: keystone.internalURL,
    region: keystone.region,
    apiTimeout: cr.spec.apiTimeout,
    customServiceConfig: cr.spec.customServiceConfig,
    defaultConfigOverwrite: cr.spec.defaultConfigOverwrite,
  });
  const name = childNames(cr.metadata.name!).configSecret;
  const secret = buildConfigSecret({
    name,
    namespace,
    labels: ownerLabels(cr, groupLabel(PLACEMENT_SERVICE_NAME)),
    data: files,
  });
  try {
    await applyOwned(io.client, cr, Kinds.Secret, secret, {
      current: io.cache.get(Kinds.Secret, { name, namespace }) ?? null,
    });
  } catch (err) {
    s.conditions.markError(
      ConditionType.ServiceConfigReady,
      err instanceof Error ? err.message : String(err),
    );
    throw err;
  }
  s.inputHashes[name] = secretHash(secret as { data?: Record<string, string>; type?: string });
  return undefined;
}
