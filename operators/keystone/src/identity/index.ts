export * from './auth.js';
export * from './client.js';
export * from './collection.js';
export * from './errors.js';
export type { HttpOptions } from './http.js';
export { RoleAssignments } from './role-assignments.js';
export * from './types.js';
