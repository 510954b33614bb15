import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { applyOwned } from '@stackops/lib-common/objects';
import type { KeystoneApiPass } from './context.js';

/** Applies an object owned by the KeystoneAPI; nothing is written when the live object already matches. */
export async function applyChild<T extends KubeObject>(
  ctx: KeystoneApiPass,
  kind: KindRef,
  obj: T,
): Promise<T> {
  const ref = {
    name: obj.metadata.name ?? '',
    namespace: obj.metadata.namespace ?? ctx.cr.metadata.namespace,
  };
  const current = ctx.cache.get<T>(kind, ref) ?? null;
  const { object } = await applyOwned(ctx.client, ctx.cr, kind, obj, { current });
  return object;
}
