import { isNotFound, type KindRef, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { removeFinalizer } from '@stackops/lib-common/runtime';

/** Takes `finalizer` off a parent (a KeystoneAPI, a KeystoneService); a parent already gone needs nothing. */
export async function releaseParent(
  client: KubeClient,
  kind: KindRef,
  parent: KubeObject | undefined,
  finalizer: string,
): Promise<void> {
  if (!parent) return;
  await removeFinalizer(client, kind, parent, finalizer).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}
