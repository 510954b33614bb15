export { debianPackages, type NodeBase, nodePath, nonroot } from './base/node-base.js';
export { type Crane, type LoopbackRegistry, locateCrane, startRegistry } from './crane.js';
export {
  type BuilderOptions,
  type BuiltImage,
  buildImage,
  defaultOutDir,
  type ImageBuilder,
  type ImageConfig,
  type ImageSpec,
  imageDir,
  type LayerInfo,
  type LayerSource,
  platform,
  withImageBuilder,
} from './image-builder.js';
export { formatImageName, type ImageName, parseImageName } from './image-name.js';
export {
  appDir,
  buildOperatorImages,
  bundlePath,
  isOperatorName,
  type OperatorImageSource,
  type OperatorImages,
  type OperatorImagesOptions,
  type OperatorName,
  operatorImageSource,
  operatorNames,
  readOperatorImages,
} from './operators.js';
export { repoRoot, type SourceInfo, sourceInfo } from './source.js';
export { type Ownership, reproducibleTarFlags, tarDirectory } from './tar.js';
