import type { KindRef } from './kinds.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

/** Any Kubernetes object, as plain JSON (never through a typed serializer). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface ObjectRef {
  namespace?: string;
  name: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  items: T[];
  metadata: { resourceVersion: string; continue?: string };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  /** Watch-list: the current objects as ADDED events, then a BOOKMARK annotated `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
  /** Required with `sendInitialEvents` (`NotOlderThan`). */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** Called once the server accepted the watch (HTTP 200), before the first event. */
  onOpen?: () => void;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Delete only this incarnation / version of the object (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ApplyOptions {
  /** Take ownership of fields another manager owns (default true for owned objects). */
  force?: boolean;
  subresource?: 'status';
}

/**
 * The one client every operator and lib-common helper uses. Plain JSON in and out; every failure
 * is an `ApiError`. The field manager is fixed per client (`stackops-<name>-operator`).
 */
export interface KubeClient {
  readonly fieldManager: string;
  get<T extends KubeObject>(kind: KindRef, ref: ObjectRef): Promise<T | undefined>;
  list<T extends KubeObject>(kind: KindRef, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(kind: KindRef, obj: T): Promise<T>;
  replace<T extends KubeObject>(kind: KindRef, obj: T, opts?: { subresource?: 'status' }): Promise<T>;
  /** Server-side apply with this client's field manager. */
  apply<T extends KubeObject>(kind: KindRef, obj: T, opts?: ApplyOptions): Promise<T>;
  patch<T extends KubeObject>(
    kind: KindRef,
    ref: ObjectRef,
    patch: unknown,
    type: PatchType,
    opts?: { subresource?: 'status' },
  ): Promise<T>;
  /** Resolves `false` when the object was already gone. */
  delete(kind: KindRef, ref: ObjectRef, opts?: DeleteOptions): Promise<boolean>;
  /** Streams watch events until the signal aborts or the server closes; rejects with ApiError (410 included). */
  watch<T extends KubeObject>(
    kind: KindRef,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
  ): Promise<void>;
}
