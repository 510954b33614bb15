export { defaultsFromEnv, type PlacementDefaults } from '../config/defaults.js';
export { placementConditionTypes } from './conditions.js';
export type { PlacementApiPass } from './context.js';
export { PLACEMENT_API_OWNED_KINDS, registerPlacementApiController } from './placement-api-controller.js';
export { PLACEMENT_API_STEPS, placementApiReconciler } from './placement-api-reconciler.js';
