/**
 * `@stackops/lib-common/runtime` — the controller machinery: `Manager`, `controller()` builder
 * (`for`/`forPredicates`/`owns`/`watches`/`reconcile`), informers and their cache, the work queue
 * with backoff and the 10 h safety-net resync, error policy, finalizers (`holdFinalizer` on
 * others' objects), predicates, leader election, Events, health/metrics server. Imports `client`,
 * `logging` and `metrics`.
 */

export { Backoff, type BackoffOptions, backoffDelay, sleep } from './backoff.js';
export {
  type CacheReader,
  InformerCache,
  type InformerCacheOptions,
  type KindCacheOptions,
} from './cache.js';
export {
  Controller,
  ControllerBuilder,
  type ControllerOptions,
  controllerOwnerKey,
  DEFAULT_RESYNC_MS,
  type MapFn,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type ReferenceOptions,
  type SourceOptions,
} from './controller.js';
export {
  CRD_SCHEMA_CONDITION,
  CRD_SCHEMA_REASON,
  CrdSchemaWatch,
  type CrdSchemaWatchOptions,
  crdSchemaDifference,
} from './crd-schema.js';
export {
  defaultErrorPolicy,
  type ErrorAction,
  type ErrorPolicy,
  ReconcileError,
  TerminalError,
} from './error-policy.js';
export {
  addFinalizerPatch,
  ensureFinalizer,
  hasFinalizer,
  holdFinalizer,
  type JsonPatchOp,
  releaseFinalizer,
  removeFinalizer,
  removeFinalizerPatch,
} from './finalizer.js';
export {
  Informer,
  type InformerEvent,
  type InformerOptions,
  type RestartReason,
  slimForCache,
} from './informer.js';
export {
  type LeaderElectionOptions,
  LeaderElector,
  type Lease,
  type LeaseSpec,
  microTime,
} from './leader.js';
export { Manager, type ManagerOptions, managerOptionsFromFlags } from './manager.js';
export { type AnyOperator, runOperators } from './operator-group.js';
export {
  type FlagHelp,
  MANAGER_FLAGS_HELP,
  type OperatorContext,
  type OperatorIo,
  type OperatorMainOptions,
  operatorUsage,
  type RegisterResult,
  runOperator,
} from './operator-main.js';
export {
  crdNameOf,
  type OptionalKindReader,
  type OptionalLookup,
  optionalKindServed,
  readExternal,
} from './optional-watch.js';
export { type ManagerFlags, parseDuration, parseManagerOptions } from './options.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelSelected,
  labelsChanged,
  not,
  or,
  type Predicate,
  resourceVersionChanged,
} from './predicates.js';
export { type Outcome, type ShutdownResult, WorkQueue, type WorkQueueOptions } from './queue.js';
export { type EventRecorder, type EventType, KubeEventRecorder, type RecorderOptions } from './recorder.js';
export { formatLabelSelector, labelMatcher, parseLabelSelector } from './selector.js';
export { type CacheListOptions, keyOf, refOfKey, Store } from './store.js';
export { baselineCompilersOnly } from './tiering.js';
export {
  type Defaulter,
  type DefaultingWebhook,
  type DefaultingWebhookOptions,
  defaultingRoute,
  jsonPatch,
  startDefaultingWebhook,
  WEBHOOK_BIND_ADDRESS_ENV,
  WEBHOOK_CERT_DIR_ENV,
  webhookOptionsFromEnv,
} from './webhook.js';
export { canonicalizeResourceQuantities, canonicalQuantity } from './webhook-quantity.js';
