import type { KubeClient } from '@stackops/lib-common/client';
import type { Conditions } from '@stackops/lib-common/conditions';
import type { Logger } from '@stackops/lib-common/logging';
import type { CacheReader, EventType } from '@stackops/lib-common/runtime';
import type { KeystoneAPI, KeystoneAPIStatus } from '../../api/keystone-api.js';
import type { KeystoneDefaults } from '../../config/defaults.js';
import type { ResolvedSpec } from '../../config/spec.js';

/** What every step of a KeystoneAPI reconcile sees and fills in. */
export interface KeystoneApiPass {
  cr: KeystoneAPI;
  spec: ResolvedSpec;
  defaults: KeystoneDefaults;
  client: KubeClient;
  /** The informer cache: the KeystoneAPIs and every kind they own. */
  cache: CacheReader;
  log: Logger;
  conditions: Conditions;
  /** The status being built; patched once at the end of the reconcile. */
  status: KeystoneAPIStatus & {
    hash: Record<string, string>;
    apiEndpoints: Record<string, string>;
    networkAttachments: Record<string, string[]>;
  };
  /** Records an Event on the KeystoneAPI (never with a Secret value). */
  event(type: EventType, reason: string, message: string): void;
  /** Asks to run again within `ms` even when every step goes on (the next fernet rotation). */
  requeueAfter(ms: number): void;
  now(): Date;
  /** Name → hash of every input the pods depend on (upstream `configMapVars`). */
  inputs: Record<string, string>;
  /** Passwords read from the input Secret (never logged). */
  passwords?: { admin: string; database: string; root: string };
  memcachedServers?: string;
  podAnnotations?: Record<string, string>;
  /** The combined input hash, once computed: the pods' CONFIG_HASH. */
  configHash?: string;
}

/** A step either goes on (undefined) or ends this reconcile, optionally asking to run again later. */
export type StepResult = undefined | { stop: true; requeueAfterMs?: number };
export type KeystoneApiStep = (pass: KeystoneApiPass) => Promise<StepResult>;

export const stop = (requeueAfterMs?: number): StepResult =>
  requeueAfterMs === undefined ? { stop: true } : { stop: true, requeueAfterMs };

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const RECHECK_AFTER_MS = 10_000;
/** "Right after the status write lands": the watch event usually comes first; this is the fallback. */
export const SOON_MS = 500;
