// The whole runtime surface from one import; `/testing`, `/schema` and `/database` stay subpaths
// (test helpers and build-time tools do not belong in an operator's runtime import).
export * from './conditions/index.js';
export * from './logging/index.js';
export * from './resources/index.js';
export * from './runtime/index.js';
