/** The NetworkAddonsConfig API only (types, schemas, kinds, small pure helpers); no controllers. */
export * from './api/index.js';
