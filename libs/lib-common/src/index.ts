// The whole runtime surface from one import; `/testing`, `/schema` and `/database` stay subpaths
// (test helpers and build-time tools do not belong in an operator's runtime import).
export * from './client/index.js';
export * from './conditions/index.js';
export * from './logging/index.js';
export * from './objects/index.js';
export * from './openstack/index.js';
export * from './pipeline/index.js';
export * from './runtime/index.js';
