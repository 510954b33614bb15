import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import type { KubeObject } from '@stackops/lib-common/client';
import { conditionListSchema, kindSchema } from '@stackops/lib-common/schema';

/** The catalog interfaces an endpoint can be registered for. */
export const EndpointInterfaces = ['admin', 'internal', 'public'] as const;
export type EndpointInterface = (typeof EndpointInterfaces)[number];

export const keystoneEndpointSpecSchema = Type.Object({
  serviceName: Type.String({ minLength: 1, description: 'Name of the KeystoneService to add endpoints to.' }),
  endpoints: Type.Record(Type.String(), Type.String({ minLength: 1 }), {
    description: 'Endpoint URL per interface (admin, internal, public).',
    maxProperties: 3,
    'x-kubernetes-validations': [
      {
        rule: "self.all(k, k == 'admin' || k == 'internal' || k == 'public')",
        message: "spec.endpoints keys must be 'admin', 'internal' or 'public'",
      },
    ],
  }),
});

export const endpointStatusSchema = Type.Object({
  interface: Type.String(),
  url: Type.String(),
  id: Type.String(),
});

export const keystoneEndpointStatusSchema = Type.Object({
  endpointIDs: Type.Optional(Type.Record(Type.String(), Type.String())),
  serviceID: Type.Optional(Type.String()),
  conditions: Type.Optional(conditionListSchema),
  endpoints: Type.Optional(Type.Array(endpointStatusSchema)),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
});

export const keystoneEndpointSchema = kindSchema(
  keystoneEndpointSpecSchema,
  keystoneEndpointStatusSchema,
  'KeystoneEndpoint registers the endpoints of a KeystoneService in Keystone.',
);

export type KeystoneEndpointSpec = Static<typeof keystoneEndpointSpecSchema>;
export type KeystoneEndpointStatus = Static<typeof keystoneEndpointStatusSchema>;
export type EndpointStatus = Static<typeof endpointStatusSchema>;
export type KeystoneEndpoint = KubeObject & { spec: KeystoneEndpointSpec; status?: KeystoneEndpointStatus };
