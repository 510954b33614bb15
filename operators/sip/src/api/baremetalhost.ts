import * as Type from '@sinclair/typebox/type';
import { resourceMetadataSchema } from './metadata.js';

/**
 * The schema of the chart's BareMetalHost CRD: the subset of metal3's BareMetalHost
 * (metal3.io/v1alpha1) that SIP reads. Unknown fields are preserved, so real metal3 manifests apply
 * unchanged to this CRD; it exists for clusters without metal3 (demos, tests) and is installed by
 * the chart only when asked. SIP's code uses the type generated from metal3's documented CRD
 * (`@stackops/lib-common/external`, ADR 0013), not this schema.
 */

const secretReferenceSchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'Secret name.' }),
  namespace: Type.Optional(Type.String({ description: 'Secret namespace (default: the host’s namespace).' })),
});

const bmcDetailsSchema = Type.Object({
  address: Type.String({
    minLength: 1,
    description: 'BMC URL, e.g. redfish+https://10.0.0.1/redfish/v1/Systems/1 or ipmi://10.0.0.1:623.',
  }),
  credentialsName: Type.String({
    minLength: 1,
    description: 'Secret in the host’s namespace with keys username and password.',
  }),
  disableCertificateVerification: Type.Optional(Type.Boolean()),
});

const bareMetalHostSpecSchema = Type.Object(
  {
    online: Type.Optional(Type.Boolean({ description: 'Whether the host should be powered on.' })),
    bootMACAddress: Type.Optional(Type.String()),
    bmc: Type.Optional(bmcDetailsSchema),
    networkData: Type.Optional(secretReferenceSchema),
    userData: Type.Optional(secretReferenceSchema),
    consumerRef: Type.Optional(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true })),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const bareMetalHostStatusSchema = Type.Object(
  {
    operationalStatus: Type.Optional(Type.String()),
    poweredOn: Type.Optional(Type.Boolean()),
    provisioning: Type.Optional(
      Type.Object({ state: Type.Optional(Type.String()) }, { 'x-kubernetes-preserve-unknown-fields': true }),
    ),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

export const bareMetalHostSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(resourceMetadataSchema),
  spec: Type.Optional(bareMetalHostSpecSchema),
  status: Type.Optional(bareMetalHostStatusSchema),
});
