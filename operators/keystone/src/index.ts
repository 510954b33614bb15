/** The keystone API only (types, schemas, KindRefs, pure helpers): safe for other operators to import. */
export * from './api/index.js';
