import { serviceFinalizerOnApi } from '../../api/finalizers.js';
import type { KeystoneService, KeystoneServiceStatus } from '../../api/keystone-service.js';
import type { DependantPass } from '../dependants/context.js';

export type KeystoneServicePass = DependantPass<KeystoneService, KeystoneServiceStatus>;

/** `openstack.org/keystoneservice-<name>`, held on the KeystoneAPI while the service is registered. */
export const apiFinalizer = (ctx: KeystoneServicePass): string =>
  serviceFinalizerOnApi(ctx.cr.metadata.name ?? '');

/** The Keystone user this KeystoneService registered, so a renamed `serviceUser` can retire the old one. */
export const SERVICE_USER_ANNOTATION = 'keystone.openstack.org/service-user';
