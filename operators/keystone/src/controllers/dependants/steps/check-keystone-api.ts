import type { KubeObject } from '@stackops/lib-common/client';
import { stop } from '@stackops/lib-common/pipeline';
import type { DependantPass } from '../context.js';
import { gateOnKeystoneAPI } from '../keystone-api-access.js';

/**
 * The namespace's KeystoneAPI is there and Ready (KeystoneAPIReady); until then the pass waits and
 * looks again (upstream: 5 s). On deletion it only runs when Keystone must be called.
 */
export async function checkKeystoneAPI(ctx: DependantPass<KubeObject, object>) {
  const deleting = ctx.cr.metadata.deletionTimestamp !== undefined;
  const gate = gateOnKeystoneAPI(ctx.cache, ctx.cr.metadata.namespace ?? '', deleting, true, ctx.conditions);
  if (gate.next === 'wait') return stop(gate.requeueAfterMs);
  // On deletion the KeystoneAPI may have gone since the pass chose its steps: the next pass only
  // releases the finalizers.
  if (gate.next === 'release-only') return stop();
  ctx.api = gate.api;
  return undefined;
}
