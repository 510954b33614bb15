/**
 * The stand-in workload images (Keystone, Placement, MariaDB, openstackclient): built here from
 * Debian packages and PyPI wheels to the contract of the TCIB images the operators target.
 */
export {
  type BuildOptions,
  type BuiltLayer,
  buildWorkloadLayers,
  defaultWorkloadsCacheDir,
} from './build.js';
export {
  buildWorkloadImages,
  type WorkloadImage,
  type WorkloadImageDefinition,
  type WorkloadImageName,
  type WorkloadImages,
  workloadImageNames,
  workloadImages,
} from './images.js';
export { type LayerName, layerNames, layers, PIP_VERSION, WORKLOADS_EPOCH } from './layers.js';
export { formatWorkloadSummary } from './summary.js';
