import type { CrdDefinition, PrinterColumn } from '@stackops/lib-common/schema';
import { GROUP, VERSION } from './group.js';
import { keystoneApiSchema } from './keystone-api.js';
import { keystoneApplicationCredentialSchema } from './keystone-application-credential.js';
import { keystoneEndpointSchema } from './keystone-endpoint.js';
import { keystoneServiceSchema } from './keystone-service.js';

const readyColumns: PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Message', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message' },
];

const v1beta1 = (schema: CrdDefinition['versions'][number]['schema'], columns: PrinterColumn[]) => [
  { name: VERSION, served: true, storage: true, schema, statusSubresource: true, printerColumns: columns },
];

const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** A namespaced keystone.openstack.org/v1beta1 kind (plural and singular its lower-case name). */
const keystoneCrd = (
  kind: string,
  schema: CrdDefinition['versions'][number]['schema'],
  columns: PrinterColumn[],
  extra: Partial<CrdDefinition> = {},
): CrdDefinition => ({
  group: GROUP,
  kind,
  plural: `${kind.toLowerCase()}s`,
  singular: kind.toLowerCase(),
  ...extra,
  scope: 'Namespaced',
  versions: v1beta1(schema, columns),
});

export const keystoneApiCrd = keystoneCrd('KeystoneAPI', keystoneApiSchema, [
  ...readyColumns,
  { name: 'Replicas', type: 'integer', jsonPath: '.status.readyCount' },
  { name: 'Public', type: 'string', jsonPath: '.status.apiEndpoints.public' },
  { name: 'Internal', type: 'string', jsonPath: '.status.apiEndpoints.internal', priority: 1 },
  { name: 'NetworkAttachments', type: 'string', jsonPath: '.spec.networkAttachments', priority: 1 },
  ageColumn,
]);

export const keystoneServiceCrd = keystoneCrd('KeystoneService', keystoneServiceSchema, [
  ...readyColumns,
  { name: 'Type', type: 'string', jsonPath: '.spec.serviceType' },
  { name: 'ServiceID', type: 'string', jsonPath: '.status.serviceID', priority: 1 },
  ageColumn,
]);

export const keystoneEndpointCrd = keystoneCrd('KeystoneEndpoint', keystoneEndpointSchema, [
  ...readyColumns,
  { name: 'Service', type: 'string', jsonPath: '.spec.serviceName' },
  { name: 'Public', type: 'string', jsonPath: '.spec.endpoints.public' },
  { name: 'Internal', type: 'string', jsonPath: '.spec.endpoints.internal', priority: 1 },
  ageColumn,
]);

export const keystoneApplicationCredentialCrd = keystoneCrd(
  'KeystoneApplicationCredential',
  keystoneApplicationCredentialSchema,
  [
    { name: 'ACID', type: 'string', jsonPath: '.status.acID' },
    { name: 'SecretName', type: 'string', jsonPath: '.status.secretName' },
    { name: 'LastRotated', type: 'date', jsonPath: '.status.lastRotated' },
    { name: 'RotationEligible', type: 'date', jsonPath: '.status.rotationEligibleAt' },
    ...readyColumns,
  ],
  { shortNames: ['appcred'] },
);

export const keystoneCrds: readonly CrdDefinition[] = [
  keystoneApiCrd,
  keystoneServiceCrd,
  keystoneEndpointCrd,
  keystoneApplicationCredentialCrd,
];

/**
 * The only objects of keystone's CRDs that keep fields the schema does not declare, and why: the
 * extra mounts' volumes and mounts are core/v1 Volume and VolumeMount objects copied into the API
 * pods, where the API server checks them. Every other object refuses unknown fields.
 */
export const FREE_FORM_OBJECTS: Readonly<Record<string, string>> = {
  'KeystoneAPI spec.extraMounts[].extraVol[].volumes[]': 'core/v1 Volume, checked on the pods',
  'KeystoneAPI spec.extraMounts[].extraVol[].mounts[]': 'core/v1 VolumeMount, checked on the pods',
};
