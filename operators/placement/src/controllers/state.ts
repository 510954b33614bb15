import type { Conditions } from '@stackops/lib-common/conditions';
import type { Logger } from '@stackops/lib-common/logging';
import type { KubeClient } from '@stackops/lib-common/resources';
import type { CacheReader } from '@stackops/lib-common/runtime';
import type { PlacementAPI, PlacementAPIStatus } from '../api/index.js';

/** What a reconcile step may use to read and write. */
export interface StepIo {
  client: KubeClient;
  cache: CacheReader;
  log: Logger;
  /** Records a Kubernetes Event on the PlacementAPI (never with secret values). */
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** Settings of the operator that do not come from the CR. */
export interface PlacementDefaults {
  /** Image for a PlacementAPI without `containerImage`. */
  apiImage: string;
  /** Image with a MariaDB client, for the db-create Job. */
  mariadbImage: string;
}

/** The state one reconcile builds up, step by step. */
export interface ReconcileState {
  readonly cr: PlacementAPI;
  readonly conditions: Conditions;
  /** The status being built; written once at the end, only if it changed. */
  readonly status: PlacementAPIStatus & { hash: Record<string, string> };
  readonly defaults: PlacementDefaults;
  /** Named hashes of every input the pods depend on (upstream `configMapVars`). */
  readonly inputHashes: Record<string, string>;
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

/** A step either lets the reconcile go on (`undefined`) or ends it, maybe asking to come back later. */
export type StepResult = undefined | { stop: true; requeueAfter?: number };

export const stop = (requeueAfter?: number): StepResult =>
  requeueAfter === undefined ? { stop: true } : { stop: true, requeueAfter };

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const REQUEUE_MISSING_MS = 10_000;

/** The image for the API and its jobs. */
export const apiImage = (s: ReconcileState): string => s.cr.spec.containerImage || s.defaults.apiImage;
