import { PruneError, pruneOwned } from '@stackops/lib-common/objects';
import { RENDERED_KINDS } from '../../resources/kinds.js';
import { describeObject, errorText, type NetworkAddonsPass, retryableFailure } from '../context.js';

/** Deletes what this CR owns but no longer renders (a component removed from the spec, a renamed object). */
export async function pruneStaleObjects(ctx: NetworkAddonsPass) {
  try {
    const deleted = await pruneOwned(ctx.client, ctx.cache, {
      kinds: ctx.kinds ?? RENDERED_KINDS,
      owner: ctx.cr,
      keep: (ctx.rendered ?? []).map((r) => r.object),
    });
    for (const { object } of deleted)
      ctx.log.info({ object: describeObject(object) }, 'removed an object no longer rendered');
  } catch (err) {
    if (!(err instanceof PruneError)) throw err;
    throw retryableFailure(
      'FailedToDeleteObjects',
      `could not delete ${describeObject(err.object)}: ${errorText(err.cause)}`,
      err,
    );
  }
  return undefined;
}
