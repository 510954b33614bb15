import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import type { KubeObject } from '@stackops/lib-common/client';
import { conditionListSchema, kindSchema } from '@stackops/lib-common/schema';

export const keystoneServiceSpecSchema = Type.Object({
  serviceType: Type.String({ minLength: 1, description: 'Service type in the catalog, e.g. placement.' }),
  serviceName: Type.String({ minLength: 1, description: 'Service name in the catalog, e.g. placement.' }),
  serviceDescription: Type.Optional(Type.String({ description: 'e.g. Placement Service.' })),
  enabled: Type.Boolean({ description: 'Whether the service is enabled in the catalog.' }),
  serviceUser: Type.String({ minLength: 1, description: 'Keystone user created for the service.' }),
  secret: Type.String({ minLength: 1, description: 'Secret holding the service user password.' }),
  passwordSelector: Type.String({ minLength: 1, description: 'Key of the password in secret.' }),
});

export const keystoneServiceStatusSchema = Type.Object({
  serviceID: Type.Optional(
    Type.String({ description: 'ID of the catalog service this object owns in Keystone.' }),
  ),
  userID: Type.Optional(
    Type.String({ description: 'ID of the service user this object owns in Keystone (empty when shared).' }),
  ),
  conditions: Type.Optional(conditionListSchema),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
});

export const keystoneServiceSchema = kindSchema(
  keystoneServiceSpecSchema,
  keystoneServiceStatusSchema,
  'KeystoneService registers a service and its user in Keystone.',
);

export type KeystoneServiceSpec = Static<typeof keystoneServiceSpecSchema>;
export type KeystoneServiceStatus = Static<typeof keystoneServiceStatusSchema>;
export type KeystoneService = KubeObject & { spec: KeystoneServiceSpec; status?: KeystoneServiceStatus };
