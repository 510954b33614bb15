import { type KindRef, Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { KeystoneEndpointKind, KeystoneServiceKind } from './targets.js';

/** Kinds the operators create for their custom resources. */
const ownedKinds: KindRef[] = [
  Kinds.Deployment,
  Kinds.DaemonSet,
  Kinds.Job,
  Kinds.CronJob,
  Kinds.Service,
  Kinds.Secret,
  Kinds.ConfigMap,
  Kinds.ServiceAccount,
  Kinds.Role,
  Kinds.RoleBinding,
  KeystoneServiceKind,
  KeystoneEndpointKind,
];

/** Counts, by kind, the objects whose ownerReferences name `uid`, across all namespaces. */
export async function countOwned(
  client: KubeClient,
  uids: string[],
): Promise<Map<string, Map<string, number>>> {
  const byOwner = new Map<string, Map<string, number>>(uids.map((u) => [u, new Map()]));
  for (const kind of ownedKinds) {
    let items: KubeObject[] = [];
    try {
      items = (await client.list(kind)).items;
    } catch {
      continue; // a CRD the demo did not install
    }
    for (const obj of items) {
      for (const ref of obj.metadata.ownerReferences ?? []) {
        const counts = byOwner.get(ref.uid);
        if (counts) counts.set(kind.kind, (counts.get(kind.kind) ?? 0) + 1);
      }
    }
  }
  return byOwner;
}
