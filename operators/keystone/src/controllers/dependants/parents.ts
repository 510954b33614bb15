import type { KindRef, KubeClient, KubeObject } from '@stackops/lib-common/client';
import { releaseFinalizer } from '@stackops/lib-common/runtime';

/** Takes `finalizer` off a parent (a KeystoneAPI, a KeystoneService); a parent already gone needs nothing. */
export async function releaseParent(
  client: KubeClient,
  kind: KindRef,
  parent: KubeObject | undefined,
  finalizer: string,
): Promise<void> {
  if (!parent) return;
  await releaseFinalizer(client, kind, parent, finalizer);
}
