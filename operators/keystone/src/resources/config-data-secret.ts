import type { KubeObject } from '@stackops/lib-common/client';
import { buildConfigSecret } from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { ResolvedSpec } from '../config/spec.js';
import { configFiles, type KeystoneConfigData } from '../templates/config-files.js';
import { KeystoneNames, keystoneGroupLabels } from './names.js';

/** `<cr>-config-data`: every rendered config file of the KeystoneAPI. */
export function buildConfigDataSecret(
  cr: KeystoneAPI,
  spec: ResolvedSpec,
  data: KeystoneConfigData,
): KubeObject {
  return buildConfigSecret({
    name: KeystoneNames.configSecret(cr),
    namespace: cr.metadata.namespace ?? '',
    labels: keystoneGroupLabels(cr),
    data: configFiles(spec, data),
  });
}

/**
 * `<cr>-scripts`: upstream renders keystone's (empty) scripts folder into it and mounts it at
 * /usr/local/bin/container-scripts; kept so pod specs and Secrets match upstream's.
 */
export function buildScriptsSecret(cr: KeystoneAPI): KubeObject {
  return buildConfigSecret({
    name: KeystoneNames.scriptsSecret(cr),
    namespace: cr.metadata.namespace ?? '',
    labels: keystoneGroupLabels(cr),
    data: {},
  });
}
