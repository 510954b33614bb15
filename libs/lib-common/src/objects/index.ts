/**
 * `@stackops/lib-common/objects` — writing owned objects: server-side apply only when different
 * (`applyOwned`), status patched only when changed, pruning, owner references, stable hashes and
 * Secret values, writes in waves. Imports `client` and `conditions`.
 */

export {
  APPLIED_HASH_ANNOTATION,
  type ApplyOwnedOptions,
  type ApplyResult,
  applyOwned,
  applyUnowned,
  desiredOwnedObject,
  desiredUnownedObject,
  isUpToDate,
} from './apply.js';
export {
  configMapHash,
  type HashMap,
  hashChanged,
  hashOfInputHashes,
  INPUT_HASH_KEY,
  inputHash,
  secretHash,
  setHash,
  stableHash,
} from './hash.js';
export { checkImageReferences, isValidImageReference } from './image-reference.js';
export { controllerOf, controllerReference, withControllerReference } from './owner.js';
export { type ObjectLister, objectIdentity, PruneError, type PruneOptions, pruneOwned } from './prune.js';
export { type ExistsLookup, type RecordedWrite, recordingClient } from './recording-client.js';
export {
  getOrCreateSecret,
  MissingSecretKeyError,
  readSecretKey,
  requireSecretKeys,
  type SecretKeySelector,
  type SecretObject,
  secretValue,
  type VerifiedSecret,
  verifySecret,
} from './secrets.js';
export { type PatchStatusOptions, patchStatusIfChanged } from './status.js';
export { type InWavesOptions, inWaves, waveOf } from './waves.js';
