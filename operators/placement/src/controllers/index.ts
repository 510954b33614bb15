export { placementConditionTypes } from './conditions.js';
export { defaultsFromEnv } from './defaults.js';
export { PLACEMENT_API_OWNED_KINDS, registerPlacementApiController } from './placement-api-controller.js';
export { PlacementApiReconciler, placementSteps } from './placement-api-reconciler.js';
export type { PlacementDefaults, StepIo } from './state.js';
