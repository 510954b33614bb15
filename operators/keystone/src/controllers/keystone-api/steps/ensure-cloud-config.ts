import { Kinds } from '@stackops/lib-common/client';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildCloudConfigMap, buildCloudConfigSecret } from '../../../resources/cloud-config.js';
import { applyChild } from '../apply.js';
import type { KeystoneApiPass } from '../context.js';

/** `openstack-config` (clouds.yaml) and `openstack-config-secret` (password, cloudrc) for clients. */
export async function ensureCloudConfig(ctx: KeystoneApiPass): Promise<StepResult> {
  const input = {
    cr: ctx.cr,
    spec: ctx.spec,
    publicURL: ctx.status.apiEndpoints['public'] ?? '',
    adminPassword: ctx.passwords?.admin ?? '',
  };
  await applyChild(ctx, Kinds.ConfigMap, await buildCloudConfigMap(input));
  await applyChild(ctx, Kinds.Secret, await buildCloudConfigSecret(input));
  return undefined;
}
