/**
 * `@stackops/lib-common/client` — talking to the API server: `createKubeClient` (REST over HTTP/2,
 * server-side apply, merge and JSON patches, watches), `ApiError` and its `is*` tests, and the
 * built-in kinds (`Kinds`). The bottom layer: it imports only `metrics`.
 */

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
  cleanMessage,
  describeError,
  errorDetail,
  errorSubject,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isConnectionError,
  isForbidden,
  isGone,
  isInvalid,
  isNamespaceTerminating,
  isNotFound,
  isPatchTestFailed,
  isTooManyRequests,
  isTransient,
  isUnauthorized,
  MAX_VALUE_LENGTH,
  type StatusDetails,
  shortValue,
} from './errors.js';
export { deepEqual, isSubset, type JsonValue, mergePatchDiff, stableStringify } from './json.js';
export { apiVersionOf, type KindRef, Kinds, kindKey, resourcePath } from './kinds.js';
export type * from './types.js';
