export { defaultsFromEnv, type PlacementDefaults } from '../config/defaults.js';
export { placementConditionTypes } from './placement-api/conditions.js';
export type { PlacementApiPass } from './placement-api/context.js';
export { PLACEMENT_API_OWNED_KINDS, registerPlacementApiController } from './placement-api/controller.js';
export { PLACEMENT_API_STEPS, placementApiReconciler } from './placement-api/reconciler.js';
