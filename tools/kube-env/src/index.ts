export { type BinaryName, binaryNames, binaryPath, ensureBinary } from './binaries.js';
export { type BuildOptions, type BuildResult, ensureBinaries, isCacheComplete } from './build/build.js';
export { goEnv } from './build/go.js';
export { ensureOperatorSdk, OPERATOR_SDK_VERSION } from './build/operator-sdk.js';
export { ensurePromtool, PROMTOOL_VERSION } from './build/promtool.js';
export {
  type ClusterHandle,
  type ClusterStatus,
  clusterStatus,
  defaultClusterName,
  defaultNodeCount,
  listClusters,
  type StartOptions,
  startCluster,
  stopCluster,
} from './cluster/control-plane.js';
export { type ComponentName, clusterLayout, componentNames } from './cluster/layout.js';
export {
  type ControlPlane,
  type ControlPlaneOptions,
  type RealNode,
  startControlPlane,
} from './control-plane.js';
export { loadImages, runInRealNode, setRealNodeFrozen } from './node/access.js';
export { fakeNodeTaint, realNodeLabels, realNodeName, realNodeNetwork } from './node/network.js';
export { ovsNetwork } from './node/ovs.js';
export { ovsVsctl } from './node/ovs-vsctl.js';
export type { RealNodeState } from './node/real-node.js';
export { type CacheLayout, cacheLayout, kubeEnvRoot, stackopsCacheDir } from './paths.js';
export { cacheKey, versions } from './versions.js';
