/**
 * `@stackops/lib-common/openstack` — upstream lib-common's `modules/common` for OpenStack service
 * operators: hash-gated Jobs, Deployment/Service/RBAC/network builders, TLS inputs, Topology
 * placement (with its finalizer), templates, labels, the password rule. Imports `client`,
 * `conditions`, `external`, `objects`, `pipeline` and `runtime`.
 */

export {
  API_PRE_STOP,
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
  ADOPTED_JOB_MESSAGE,
  type AdoptableJob,
  adoptJobRun,
  isForeignJobHash,
  JOB_ADOPTED_REASON,
  keepAdoptedMessage,
  markAdoptableJobRuns,
} from './job-adoption.js';
export { runJobStep } from './job-step.js';
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
export {
  buildPodDisruptionBudget,
  ensurePodDisruptionBudget,
  type PodDisruptionBudgetInput,
  wantsPodDisruptionBudget,
} from './pdb.js';
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
export {
  CA_BUNDLE_VOLUME,
  caBundleVolume,
  caBundleVolumeMount,
  caBundleVolumes,
  certVolume,
  certVolumeMounts,
  DEFAULT_CA_BUNDLE_SECRET,
  endpointCertVolumes,
  endpointProtocol,
  httpdVhostCertFiles,
  kollaTlsConfigFiles,
  markTlsInputCondition,
  TLS_ENDPOINTS,
  type TlsApiSpec,
  type TlsEndpoint,
  TlsHashKeys,
  type TlsInputVerdict,
  TlsKeys,
  TlsPaths,
  tlsEnabled,
  tlsSecretName,
  verifyTlsInputs,
} from './tls.js';
export {
  isForeignTopologyRef,
  type PodPlacement,
  podPlacementOf,
  type ServiceTopologyOptions,
  serviceTopologySteps,
  type TopologyConsumer,
  type TopologyPass,
  type TopologyRef,
  type TopologyStatus,
  topologyFinalizer,
  withPodPlacement,
} from './topology.js';
