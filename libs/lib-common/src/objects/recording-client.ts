import type { KindRef } from '../client/kinds.js';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClient,
  KubeObject,
  ObjectRef,
  PatchType,
} from '../client/types.js';
import { checkImageReferences } from './image-reference.js';

/** One write a reconcile made to an object other than its own status. */
export interface RecordedWrite {
  action: 'created' | 'updated' | 'deleted';
  kind: KindRef;
  /** The written object's name and namespace. */
  ref: ObjectRef;
}

/** Whether an object is there already, as the cache sees it (`undefined`: the kind is not cached). */
export type ExistsLookup = (kind: KindRef, ref: ObjectRef) => boolean | undefined;

const refOf = (obj: KubeObject): ObjectRef => ({
  name: obj.metadata.name ?? '',
  ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
});

/**
 * A client that tells `onWrite` about every successful create, update (apply, replace, patch)
 * and delete it sends, so a reconcile can log and record Events for what it changed without
 * per-step code. Writes to a `status` subresource and to Events are not reported (the pipeline
 * reports status itself; an Event about an Event is noise). An apply counts as a create when
 * `exists` says the object was not there before. A workload whose container image no runtime can
 * pull is refused before it is sent (`checkImageReferences`), whichever helper builds it.
 */
export function recordingClient(
  client: KubeClient,
  onWrite: (write: RecordedWrite) => void,
  exists: ExistsLookup = () => undefined,
): KubeClient {
  const quiet = (kind: KindRef, opts?: { subresource?: string }) =>
    opts?.subresource !== undefined || kind.kind === 'Event';
  const report = (
    action: RecordedWrite['action'],
    kind: KindRef,
    ref: ObjectRef,
    opts?: { subresource?: string },
  ) => {
    if (!quiet(kind, opts)) onWrite({ action, kind, ref });
  };
  return {
    get fieldManager() {
      return client.fieldManager;
    },
    get: (kind, ref) => client.get(kind, ref),
    list: (kind, opts) => client.list(kind, opts),
    watch: (kind, opts, onEvent) => client.watch(kind, opts, onEvent),
    async create<T extends KubeObject>(kind: KindRef, obj: T): Promise<T> {
      checkImageReferences(kind.kind, obj);
      const out = await client.create<T>(kind, obj);
      report('created', kind, refOf(out));
      return out;
    },
    async replace<T extends KubeObject>(
      kind: KindRef,
      obj: T,
      opts?: { subresource?: 'status' },
    ): Promise<T> {
      const out = await client.replace<T>(kind, obj, opts);
      report('updated', kind, refOf(out), opts);
      return out;
    },
    async apply<T extends KubeObject>(kind: KindRef, obj: T, opts?: ApplyOptions): Promise<T> {
      if (!opts?.subresource) checkImageReferences(kind.kind, obj);
      const before = exists(kind, refOf(obj));
      const out = await client.apply<T>(kind, obj, opts);
      report(before === false ? 'created' : 'updated', kind, refOf(out), opts);
      return out;
    },
    async patch<T extends KubeObject>(
      kind: KindRef,
      ref: ObjectRef,
      patch: unknown,
      type: PatchType,
      opts?: { subresource?: 'status' },
    ): Promise<T> {
      const out = await client.patch<T>(kind, ref, patch, type, opts);
      report('updated', kind, ref, opts);
      return out;
    },
    async delete(kind: KindRef, ref: ObjectRef, opts?: DeleteOptions): Promise<boolean> {
      const deleted = await client.delete(kind, ref, opts);
      if (deleted) report('deleted', kind, ref);
      return deleted;
    },
  };
}
