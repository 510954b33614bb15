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
export { httpdSslConf } from './httpd-ssl.js';
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
export { passwordProblem } from './passwords.js';
export { withPullPolicyDefaults } from './pod.js';
export {
  buildRbac,
  type PolicyRule,
  type RbacCurrent,
  type RbacInput,
  reconcileRbac,
  SERVICE_POD_RULES,
} from './rbac.js';
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
export {
  buildConfigMap,
  buildConfigSecret,
  type ConfigObjectInput,
  renderCustomData,
  renderString,
  substituteParameters,
  TemplateError,
} from './templates.js';
