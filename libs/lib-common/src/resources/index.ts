export {
  APPLIED_HASH_ANNOTATION,
  type ApplyOwnedOptions,
  type ApplyResult,
  applyOwned,
  applyUnowned,
  desiredOwnedObject,
  desiredUnownedObject,
  isUpToDate,
} from './apply.js';
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
  buildDeployment,
  CONFIG_HASH_ENV,
  type Container,
  type DeploymentInput,
  distributePods,
  type EnvVar,
  type HttpProbeInput,
  httpProbe,
  isDeploymentReady,
  observedReadyReplicas,
  withEnv,
} from './deployment.js';
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
export {
  configMapHash,
  type HashMap,
  hashChanged,
  hashOfInputHashes,
  INPUT_HASH_KEY,
  inputHash,
  secretHash,
  setHash,
  stableHash,
} from './hash.js';
export { formatIni, type IniDocument, mergeIni, parseIni } from './ini.js';
export {
  DEFAULT_JOB_TTL_SECONDS,
  decideJobAction,
  type HashGatedJobOptions,
  type HashGatedJobResult,
  JOB_HASH_ANNOTATION,
  type JobAction,
  type JobObject,
  type JobState,
  jobHash,
  markJobCondition,
  runHashGatedJob,
} from './jobs.js';
export { deepEqual, isSubset, type JsonValue, mergePatchDiff, stableStringify } from './json.js';
export { apiVersionOf, type KindRef, Kinds, kindKey, resourcePath } from './kinds.js';
export {
  AppSelector,
  ComponentSelector,
  groupLabel,
  labelSelector,
  OwnerSelector,
  ownerLabels,
  serviceLabels,
} from './labels.js';
export {
  getNetworkAttachments,
  markNetworkAttachmentsCondition,
  NETWORK_STATUS_ANNOTATION,
  NETWORKS_ANNOTATION,
  type NetworkAttachmentDefinition,
  type NetworkAttachmentsVerdict,
  type NetworkSelection,
  type NetworkStatus,
  nadGateway,
  networksAnnotation,
  parseNetworkStatus,
  verifyNetworkStatus,
} from './network.js';
export { controllerOf, controllerReference, withControllerReference } from './owner.js';
export { withPullPolicyDefaults } from './pod.js';
export { type ObjectLister, objectIdentity, PruneError, type PruneOptions, pruneOwned } from './prune.js';
export {
  buildRbac,
  type PolicyRule,
  type RbacCurrent,
  type RbacInput,
  reconcileRbac,
  SERVICE_POD_RULES,
} from './rbac.js';
export {
  MissingSecretKeyError,
  passwordProblem,
  readSecretKey,
  requireSecretKeys,
  type SecretKeySelector,
  type SecretObject,
  secretValue,
  type VerifiedSecret,
  verifySecret,
} from './secrets.js';
export {
  apiEndpointURL,
  applyServiceOverride,
  buildEndpointService,
  buildService,
  type EndpointServiceInput,
  type EndpointType,
  type EndpointURLInput,
  type LoadBalancerState,
  loadBalancerState,
  type MetalLBInput,
  metalLBAnnotations,
  type OverrideServiceSpec,
  type RoutedOverrideSpec,
  ServiceAnnotations,
  type ServiceInput,
  type ServicePort,
  serviceHostname,
} from './service.js';
export { type PatchStatusOptions, patchStatusIfChanged } from './status.js';
export {
  buildConfigMap,
  buildConfigSecret,
  type ConfigObjectInput,
  renderCustomData,
  renderString,
  renderTemplates,
  substituteParameters,
  TemplateError,
  templatesDir,
} from './templates.js';
export type * from './types.js';
