import { serviceFinalizerOnApi } from '../../api/finalizers.js';
import type { KeystoneService, KeystoneServiceStatus } from '../../api/keystone-service.js';
import type { Ownership } from '../../registration/service.js';
import type { DependantPass } from '../dependants/context.js';
import { ownershipOf } from '../dependants/ownership.js';

export type KeystoneServicePass = DependantPass<KeystoneService, KeystoneServiceStatus>;

/** `openstack.org/keystoneservice-<name>`, held on the KeystoneAPI while the service is registered. */
export const apiFinalizer = (ctx: KeystoneServicePass): string =>
  serviceFinalizerOnApi(ctx.cr.metadata.name ?? '');

/** This KeystoneService as the owner of its Keystone service and user (ADR 0012). */
export const serviceOwnership = (ctx: KeystoneServicePass): Ownership => ownershipOf(ctx, 'KeystoneService');
