import type { KubeObject } from '@stackops/lib-common/client';
import { REJECT_OWNER_ANNOTATION } from '../api/constants.js';

/**
 * CRDs are shared with whatever else uses them and outlive the operator's components; objects
 * annotated `rejectOwner` belong to the component once created. Neither gets an owner reference,
 * so deleting the NetworkAddonsConfig leaves them in place.
 */
export const takesOwnerReference = (obj: KubeObject): boolean =>
  obj.kind !== 'CustomResourceDefinition' && !(REJECT_OWNER_ANNOTATION in (obj.metadata.annotations ?? {}));
