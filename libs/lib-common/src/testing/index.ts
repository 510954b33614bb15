/**
 * `@stackops/lib-common/testing` — the one test harness. Unit tests: `FakeKubeClient` (an in-memory
 * API server with watches and `failOn`), `reconcileOnce`, `convergeOnFake`, `stepFailure`,
 * `startFakeManager`, `simulateControllerManager`, `fakeConditionOf`. Integration tests:
 * kubeconfig, namespaces (`useTestNamespace`), CRDs, `startTestManager`, charts. One vocabulary for
 * both: `conditionOf`/`expectCondition` (upstream's `ExpectCondition`), `waitFor` (an object until a
 * predicate), `waitForObject` (until it exists and a check holds), `waitForCondition`/
 * `waitForConditions`, `waitUntil` (any probe), `eventually` (an assertion), `waitForDeletion`;
 * `base64`/`fromBase64` for Secret data, `createSecret` for a Secret of plain text, `fakeSecretText` to read one the fake holds, `setSecretData` to change one; `expectPdbFollowsReplicas` for an API's PodDisruptionBudget; `setLoadBalancerIP` as MetalLB would; `goOperatorHash` for a status the Go operators wrote; `eventsIn`,
 * `failedCondition` and `REQUEST_LINE` for what a failure tells the user.
 */

export {
  base64,
  type ConditionView,
  conditionOf,
  conditionProblems,
  type ExpectedCondition,
  type ExpectedConditions,
  expectCondition,
  fakeConditionOf,
  fromBase64,
  waitForCondition,
  waitForConditions,
} from './conditions.js';
export { seedGalera, simulateControllerManager, simulateMariadbOperator } from './controller-manager.js';
export {
  type ConvergeOptions,
  convergeOnFake,
  type StepFailure,
  type StepFailureOptions,
  serverError,
  stepFailure,
} from './converge.js';
export { installCrds, type ReadCrdsOptions, readCrds } from './crds.js';
export { eventsIn, failedCondition, REQUEST_LINE, type TestEvent } from './events.js';
export {
  FakeKubeClient,
  FakeRecorder,
  type FakeRequest,
  fakeReconcileContext,
  type RecordedEvent,
  reconcileOnce,
  startFakeManager,
} from './fake.js';
export { galeraDatabase } from './galera.js';
export { goOperatorHash } from './go-hash.js';
export {
  chartFullname,
  createHelm,
  findRendered,
  HARDENED_CONTAINER_SECURITY_CONTEXT,
  type Helm,
  type HelmInstallOptions,
  type HelmTemplateOptions,
  helmBinary,
  operatorContainerProblems,
  parseRendered,
  type RenderedContainer,
  type RenderedObject,
  type RenderedRule,
  type RunCommandOptions,
  renderedContainer,
  replicaSpreadProblems,
  runCommand,
  setFlags,
  VALUES_SCHEMA_REFUSAL,
} from './helm.js';
export { loadTestKubeConfig } from './kubeconfig.js';
export { startTestManager, type TestManagerOptions } from './manager.js';
export {
  createTestNamespace,
  type TestCluster,
  type TestHooks,
  type TestNamespace,
  type TestNamespaceOptions,
  useTestNamespace,
} from './namespace.js';
export {
  PAUSED_AS_DOCUMENTED,
  type PausedOutcome,
  type PausedRoundTrip,
  pausedRoundTrip,
  scaledDeployment,
} from './paused.js';
export { expectPdbFollowsReplicas, type PdbScenario } from './pdb.js';
export {
  promtoolRuleTests,
  type RenderedRuleGroup,
  renderChartRules,
  seriesReadByRules,
  testChartRules,
} from './prometheus-rules.js';
export { reconcileCount, settledReconcileCount } from './reconciles.js';
export { createSecret, fakeSecretText, setSecretData } from './secrets.js';
export { setLoadBalancerIP } from './services.js';
export { readTestSources } from './test-sources.js';
export {
  describeConditions,
  describeObject,
  eventually,
  type WaitOptions,
  type WaitUntilOptions,
  waitFor,
  waitForDeletion,
  waitForObject,
  waitUntil,
} from './wait.js';
export { webhookChartProblems } from './webhook-chart.js';
export { countWritesIn, type WriteCount, writesOver } from './writes.js';
