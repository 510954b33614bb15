import { Reason, Severity } from '@stackops/lib-common/conditions';
import { stop } from '@stackops/lib-common/pipeline';
import { KeystoneMessages as M, KeystoneConditionTypes as T } from '../../../api/conditions.js';
import { isBeingDeleted, isKeystoneAPIReady } from '../../../api/helpers.js';
import { findKeystoneAPI } from '../../dependants/keystone-api-access.js';
import type { AcPass } from '../context.js';

/** How long a pass waits before looking at the KeystoneAPI again (upstream: 5 s). */
const KEYSTONE_API_RECHECK_MS = 5_000;

/** The namespace's KeystoneAPI is there and Ready (KeystoneAPIReady, upstream's messages). */
export function checkKeystoneAPI(ctx: AcPass) {
  const api = findKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '');
  if (!api) {
    ctx.conditions.markFalse(T.KeystoneAPIReady, Reason.Error, Severity.Warning, M.KeystoneAPIReadyNotFound);
    return stop(KEYSTONE_API_RECHECK_MS);
  }
  if (!isKeystoneAPIReady(api) || isBeingDeleted(api)) {
    ctx.conditions.markFalse(T.KeystoneAPIReady, Reason.Requested, Severity.Info, M.KeystoneAPIReadyWaiting);
    return stop(KEYSTONE_API_RECHECK_MS);
  }
  ctx.conditions.markTrue(T.KeystoneAPIReady, M.KeystoneAPIReady);
  ctx.api = api;
  return undefined;
}
