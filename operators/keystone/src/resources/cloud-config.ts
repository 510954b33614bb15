import type { KubeObject } from '@stackops/lib-common/client';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { ResolvedSpec } from '../config/spec.js';
import { KeystoneNames, keystoneGroupLabels } from './names.js';

export interface CloudConfigInput {
  cr: KeystoneAPI;
  spec: ResolvedSpec;
  publicURL: string;
  adminPassword: string;
}

/** Both objects live beside the KeystoneAPI and carry its group labels. */
const groupMetadata = (c: CloudConfigInput, name: string) => ({
  name,
  namespace: c.cr.metadata.namespace ?? '',
  labels: keystoneGroupLabels(c.cr),
});

/** `openstack-config`: clouds.yaml (cloud `default`) for clients, without the password. */
export async function buildCloudConfigMap(c: CloudConfigInput): Promise<KubeObject> {
  // Imported here, not at the top: compiled on first use, not at every start (ADR 0057).
  const { stringifyYaml } = await import('@stackops/lib-common/yaml');
  const clouds = {
    clouds: {
      default: {
        auth: {
          auth_url: c.publicURL,
          project_name: c.spec.adminProject,
          username: c.spec.adminUser,
          user_domain_name: 'Default',
          project_domain_name: 'Default',
        },
        region_name: c.spec.region,
      },
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: groupMetadata(c, KeystoneNames.cloudConfigMap),
    data: { 'clouds.yaml': stringifyYaml(clouds), OS_CLOUD: 'default' },
  };
}

const shellQuote = (v: string): string => `'${v.replaceAll("'", `'\\''`)}'`;

/** `openstack-config-secret`: secure.yaml (the password for clouds.yaml) and a cloudrc to source. */
export async function buildCloudConfigSecret(c: CloudConfigInput): Promise<KubeObject> {
  const { stringifyYaml } = await import('@stackops/lib-common/yaml');
  const secure = stringifyYaml({ clouds: { default: { auth: { password: c.adminPassword } } } });
  const rc = [
    ['OS_AUTH_URL', c.publicURL],
    ['OS_USERNAME', c.spec.adminUser],
    ['OS_PROJECT_NAME', c.spec.adminProject],
    ['OS_PROJECT_DOMAIN_NAME', 'Default'],
    ['OS_USER_DOMAIN_NAME', 'Default'],
    ['OS_PASSWORD', c.adminPassword],
  ]
    .map(([k, v]) => `export ${k}=${shellQuote(v ?? '')}`)
    .join('\n');
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: groupMetadata(c, KeystoneNames.cloudConfigSecret),
    type: 'Opaque',
    data: { cloudrc: b64(`${rc}\n`), 'secure.yaml': b64(secure) },
  };
}
