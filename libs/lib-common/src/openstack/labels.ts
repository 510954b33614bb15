import type { KubeObject } from '../client/types.js';

/** Upstream's selector label keys (`common.AppSelector`, `common.OwnerSelector`, `common.ComponentSelector`). */
export const AppSelector = 'service';
export const OwnerSelector = 'owner';
export const ComponentSelector = 'component';

/** `<service>.openstack.org`, the label group of a service (upstream `GetGroupLabel`). */
export function groupLabel(service: string): string {
  return `${service}.openstack.org`;
}

/**
 * Labels that tie an object to the CR it was made for (upstream `GetLabels`):
 * `<group>/uid`, `<group>/namespace`, `<group>/name`, merged with `custom` (custom wins).
 */
export function ownerLabels(
  owner: KubeObject,
  group: string,
  custom: Record<string, string> = {},
): Record<string, string> {
  return {
    [`${group}/uid`]: owner.metadata.uid ?? '',
    [`${group}/namespace`]: owner.metadata.namespace ?? '',
    [`${group}/name`]: owner.metadata.name ?? '',
    ...custom,
  };
}

/** The pod labels and selector of a service's workloads: `{service: <service>, owner: <cr name>}`. */
export function serviceLabels(service: string, ownerName: string): Record<string, string> {
  return { [AppSelector]: service, [OwnerSelector]: ownerName };
}

/** A label selector string (`k=v,k2=v2`, keys sorted) for list calls. */
export function labelSelector(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}
