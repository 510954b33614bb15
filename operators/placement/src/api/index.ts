export * from './constants.js';
export { crdDefinitions, placementApiCrd } from './crds.js';
export { type PlacementAPI, PlacementAPIKind } from './kinds.js';
export * from './placementapi.js';
