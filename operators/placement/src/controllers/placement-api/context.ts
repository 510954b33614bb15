import type { KubeClient } from '@stackops/lib-common/client';
import type { Conditions } from '@stackops/lib-common/conditions';
import type { Logger } from '@stackops/lib-common/logging';
import type { CacheReader, EventType } from '@stackops/lib-common/runtime';
import type { PlacementAPIStatus } from '../../api/index.js';
import type { PlacementAPI } from '../../api/kinds.js';
import type { PlacementDefaults } from '../../config/defaults.js';

/** What every step of a PlacementAPI reconcile sees and fills in. */
export interface PlacementApiPass {
  readonly cr: PlacementAPI;
  readonly defaults: PlacementDefaults;
  readonly client: KubeClient;
  /** The informer cache: the PlacementAPIs, every kind they own, and the KeystoneAPIs. */
  readonly cache: CacheReader;
  readonly log: Logger;
  readonly conditions: Conditions;
  /** The status being built; written once at the end, only if it changed. */
  readonly status: PlacementAPIStatus & { hash: Record<string, string> };
  /** Records an Event on the PlacementAPI (never with a Secret value). */
  event(type: EventType, reason: string, message: string): void;
  /** Name → hash of every input the pods depend on (upstream `configMapVars`). */
  readonly inputs: Record<string, string>;
  /** Passwords read from the input Secret (never logged). */
  passwords?: { service: string; database: string };
  /** Hash of the two database passwords: a change re-runs the db-create Job (ALTER USER). */
  dbSecretHash?: string;
  /** The combined input hash, once computed: the pods' CONFIG_HASH. */
  configHash?: string;
  /** Annotations for every placement pod (multus networks). */
  podAnnotations: Record<string, string>;
  /** NetworkAttachmentDefinition names requested by the spec. */
  networkAttachments: string[];
}

/** A step either goes on (undefined) or ends this reconcile, optionally asking to run again later. */
export type StepResult = undefined | { stop: true; requeueAfterMs?: number };
export type PlacementApiStep = (pass: PlacementApiPass) => StepResult | Promise<StepResult>;

export const stop = (requeueAfterMs?: number): StepResult =>
  requeueAfterMs === undefined ? { stop: true } : { stop: true, requeueAfterMs };

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const RECHECK_AFTER_MS = 10_000;

/** The image for the API and its jobs. */
export const apiImage = (ctx: PlacementApiPass): string =>
  ctx.cr.spec.containerImage || ctx.defaults.apiImage;
