import type { KubeObject } from '@stackops/lib-common/client';
import { stop } from '@stackops/lib-common/pipeline';
import type { DependantPass } from '../context.js';
import { adminAccess } from '../keystone-api-access.js';

/**
 * An admin client of the KeystoneAPI's Keystone (AdminServiceClientReady), and the region to
 * register in. A missing admin Secret is a wait; a missing key or a failed login throws.
 */
export async function connectAdminClient(ctx: DependantPass<KubeObject, object>) {
  if (!ctx.api) throw new Error('connectAdminClient runs after checkKeystoneAPI');
  const access = await adminAccess(ctx.cache, ctx.pool, ctx.api, ctx.conditions);
  if (access.state === 'waiting') return stop(access.requeueAfterMs);
  ctx.identity = access.identity;
  ctx.region = access.region;
  return undefined;
}
