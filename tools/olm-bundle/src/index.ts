export {
  type Bundle,
  type BundleOptions,
  makeBundle,
  OPERATOR_CHARTS,
  RENDER_NAMESPACE,
  writeBundle,
} from './bundle.js';
