import { type KindRef, type KubeClient, type KubeObject, kindKey } from '@stackops/lib-common/resources';
import { controllerOwnerKey, Informer } from '@stackops/lib-common/runtime';
import type { Logger } from 'pino';
import { NetworkAddonsConfigKind } from '../api/kinds.js';
import { MANAGED_SELECTOR } from '../render/labels.js';

/**
 * A cache of the objects the operator renders, one informer per kind, limited to what carries
 * `app.kubernetes.io/managed-by=cnao-operator` — so the operator never lists every ConfigMap or
 * ClusterRole of the cluster. A change to an object owned by a NetworkAddonsConfig calls
 * `onOwnerChange` with the owner's name (what `owns()` does for the manager's own cache).
 */
export class ManagedObjects {
  private readonly informers = new Map<string, Informer>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    client: KubeClient,
    kinds: readonly KindRef[],
    onOwnerChange: (ownerName: string) => void,
    logger?: Logger,
  ) {
    for (const kind of kinds) {
      const informer = new Informer(client, kind, {
        labelSelector: MANAGED_SELECTOR,
        ...(logger ? { logger } : {}),
      });
      this.unsubscribe.push(
        informer.on((e) => {
          const objects = e.type === 'update' ? [e.old, e.obj] : [e.obj];
          const owners = new Set(objects.map((o) => controllerOwnerKey(o, NetworkAddonsConfigKind)));
          for (const owner of owners) if (owner) onOwnerChange(owner);
        }),
      );
      this.informers.set(kindKey(kind), informer);
    }
  }

  start(): void {
    for (const i of this.informers.values()) i.start();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced());
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
  }

  /** The cached object (null = known absent, as `applyOwned` takes it). */
  get<T extends KubeObject>(kind: KindRef, obj: KubeObject): T | null {
    const informer = this.informer(kind);
    const ns = kind.namespaced ? obj.metadata.namespace : undefined;
    return (
      (informer.get({ name: obj.metadata.name ?? '', ...(ns ? { namespace: ns } : {}) }) as T | undefined) ??
      null
    );
  }

  /** Every cached object whose controller is the NetworkAddonsConfig with this uid. */
  ownedBy(uid: string): { kind: KindRef; object: KubeObject }[] {
    return [...this.informers.values()].flatMap((i) =>
      i
        .list()
        .filter((o) => o.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid))
        .map((object) => ({ kind: i.kind, object })),
    );
  }

  private informer(kind: KindRef): Informer {
    const informer = this.informers.get(kindKey(kind));
    if (!informer) throw new Error(`${kind.kind} is not watched by the managed-objects cache`);
    return informer;
  }
}
