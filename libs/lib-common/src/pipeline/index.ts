/**
 * `@stackops/lib-common/pipeline` — a reconciler as a list of steps (`pipeline`, `Step`, `stop`,
 * `reports`): conditions initialised, the finalizer, the steps, a failure recorded on the
 * condition its step names, the status written once; and the predicates its watches take.
 * Imports `client`, `conditions`, `objects` and `runtime`.
 */

// The predicates of a pipeline's watches: its primary kind (its own status writes do not wake it
// again) and the Jobs and Deployments its steps wait on.
export {
  deploymentReadinessChanged,
  jobOutcomeChanged,
  specOrMetadataChanged,
  statusFieldsChanged,
} from '../runtime/predicates.js';
export { type FailedStep, markStepFailed } from './failures.js';
export {
  namespaceHolder,
  ONE_PER_NAMESPACE_RECHECK_MS,
  onePerNamespaceMessage,
} from './one-per-namespace.js';
export { ownsPipelineKinds } from './owned-kinds.js';
export { isPaused, PAUSED_ANNOTATION, PAUSED_CONDITION, PAUSED_MESSAGE, pausedChanged } from './paused.js';
export { type Pass, type PipelineDefinition, pipeline, type StatusOf } from './pipeline.js';
export { checkSpecFirst, type SpecCheck, secretKeyProblem } from './spec-check.js';
export {
  reports,
  runSteps,
  type Step,
  type StepResult,
  type StepsOutcome,
  stop,
  whileWaiting,
} from './step.js';
