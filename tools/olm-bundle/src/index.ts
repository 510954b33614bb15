export {
  type Bundle,
  type BundleOptions,
  makeBundle,
  OPERATOR_CHARTS,
  RENDER_NAMESPACE,
  readExamples,
  writeBundle,
} from './bundle.js';
