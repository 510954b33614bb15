export {
  createKubeClient,
  type Impersonation,
  impersonationHeaders,
  type KubeClientOptions,
  listAll,
  type RestKubeClient,
  serviceAccountUser,
} from './client.js';
export { type CountFilter, NO_RESPONSE, RequestCounter, type Verb, WRITE_VERBS } from './client-metrics.js';
export {
  ApiError,
  type ApiErrorInit,
  apiErrorFromResponse,
  CLIENT_TIMEOUT,
  CONNECTION_ERROR,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isConnectionError,
  isForbidden,
  isGone,
  isInvalid,
  isNamespaceTerminating,
  isNotFound,
  isTooManyRequests,
  isTransient,
  isUnauthorized,
  type StatusDetails,
} from './errors.js';
export { deepEqual, isSubset, type JsonValue, mergePatchDiff, stableStringify } from './json.js';
export { apiVersionOf, type KindRef, Kinds, kindKey, resourcePath } from './kinds.js';
export type * from './types.js';
