import type { Conditions } from '@stackops/lib-common/conditions';
import type { KindRef, KubeClient, KubeObject, ObjectRef } from '@stackops/lib-common/resources';
import type { KeystoneAPI, KeystoneAPIStatus } from '../../api/keystone-api.js';
import type { ImageDefaults, ResolvedSpec } from '../../resources/spec.js';

/** Reads objects: from the informer cache when the manager has one for the kind, else from the API. */
export interface Reader {
  get<T extends KubeObject>(kind: KindRef, ref: ObjectRef): Promise<T | undefined>;
  list<T extends KubeObject>(kind: KindRef, namespace: string, labelSelector?: string): Promise<T[]>;
}

/** Records Kubernetes Events for the object being reconciled (optional in tests). */
export interface EventSink {
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** What every step of a KeystoneAPI reconcile sees and fills in. */
export interface StepContext {
  cr: KeystoneAPI;
  spec: ResolvedSpec;
  client: KubeClient;
  reader: Reader;
  conditions: Conditions;
  /** The status being built; patched once at the end of the reconcile. */
  status: KeystoneAPIStatus & {
    hash: Record<string, string>;
    apiEndpoints: Record<string, string>;
    networkAttachments: Record<string, string[]>;
  };
  images: ImageDefaults;
  now: () => Date;
  events?: EventSink | undefined;
  log?: Logger | undefined;
  /** Name → hash of every input the pods depend on (upstream `configMapVars`). */
  inputs: Record<string, string>;
  /** Values read from the input Secret (never logged). */
  secrets?: { admin: string; database: string; root: string };
  memcachedServers?: string;
  podAnnotations?: Record<string, string>;
  configHash?: string;
  /** When this reconcile wants to run again at the latest (e.g. the next fernet rotation), ms from now. */
  wakeAfterMs?: number;
}

/** A step either continues (undefined) or ends this reconcile, optionally asking to run again later. */
export type StepResult = undefined | { stop: true; requeueAfterMs?: number };
export type Step = (ctx: StepContext) => Promise<StepResult>;

export const stop = (requeueAfterMs?: number): StepResult =>
  requeueAfterMs === undefined ? { stop: true } : { stop: true, requeueAfterMs };

export const REQUEUE_SHORT_MS = 10_000;
/** "Right after the status write lands": the watch event usually comes first; this is the fallback. */
export const SOON_MS = 500;
