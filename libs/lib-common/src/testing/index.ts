export { installCrds, readCrds } from './crds.js';
export { loadTestKubeConfig } from './kubeconfig.js';
export { startTestManager, type TestManagerOptions } from './manager.js';
export { createTestNamespace, type TestNamespace } from './namespace.js';
export {
  describeConditions,
  describeObject,
  eventually,
  type WaitOptions,
  waitFor,
  waitForDeletion,
} from './wait.js';
