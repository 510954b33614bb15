export * from './baremetalhost.js';
export * from './constants.js';
export * from './crds.js';
export * from './kinds.js';
export * from './label-selector.js';
export * from './services.js';
export * from './sipcluster.js';
