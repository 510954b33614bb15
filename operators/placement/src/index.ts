// The package's public surface is its API only (types, schemas, KindRefs); controllers live in
// ./controllers and are started by main.ts.
export * from './api/index.js';
