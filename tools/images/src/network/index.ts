/**
 * The network add-on images (Multus thick, the CNI reference plugins, bridge-marker, whereabouts):
 * built here from Go modules to the contract of the images network-addons-operator deploys.
 */
export {
  buildNetworkImages,
  type NetworkImage,
  type NetworkImageName,
  networkImageNames,
  networkImages,
} from './images.js';
