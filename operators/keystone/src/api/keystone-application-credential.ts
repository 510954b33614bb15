import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { conditionListSchema, kindSchema } from '@stackops/lib-common/schema';
import { GROUP, VERSION } from './group.js';

/**
 * KeystoneApplicationCredential (short name `appcred`): an application credential of a service
 * user, kept in an immutable Secret and rotated before it expires. Field names, the Secret's name,
 * keys and labels, the finalizers and the condition are upstream's, so consumers written for
 * upstream (placement's `spec.auth.applicationCredentialSecret`) read our Secrets unchanged.
 */

/** How to address KeystoneApplicationCredentials over REST. */
export const KeystoneApplicationCredentialKind: KindRef = {
  group: GROUP,
  version: VERSION,
  kind: 'KeystoneApplicationCredential',
  plural: 'keystoneapplicationcredentials',
  namespaced: true,
};

/** The HTTP methods an access rule may allow (upstream's enum). */
export const AccessRuleMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const accessRuleSchema = Type.Object({
  service: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'OpenStack service type, e.g. compute.',
  }),
  path: Type.String({ minLength: 1, maxLength: 1024, description: 'API path to allow, e.g. /v2.1/servers.' }),
  method: Type.Union(
    AccessRuleMethods.map((m) => Type.Literal(m)),
    { description: 'HTTP verb to allow.' },
  ),
});

export const keystoneApplicationCredentialSpecSchema = Type.Object(
  {
    secret: Type.String({
      minLength: 1,
      maxLength: 253,
      description: 'Secret holding the service user password.',
    }),
    passwordSelector: Type.String({
      minLength: 1,
      maxLength: 253,
      description: 'Key of the password in secret.',
    }),
    userName: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Keystone user (domain Default, project service) the credential is created for.',
    }),
    expirationDays: Type.Optional(
      Type.Integer({
        default: 365,
        minimum: 2,
        maximum: 3650,
        description: 'Lifetime of each credential, in days.',
      }),
    ),
    gracePeriodDays: Type.Optional(
      Type.Integer({
        default: 182,
        minimum: 1,
        maximum: 3649,
        description: 'Rotate this many days before the credential expires (less than expirationDays).',
      }),
    ),
    roles: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      minItems: 1,
      maxItems: 32,
      description: 'Roles of the user on project service the credential carries.',
    }),
    unrestricted: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Whether the credential may create or delete other credentials and trusts.',
      }),
    ),
    accessRules: Type.Optional(
      Type.Array(accessRuleSchema, {
        maxItems: 64,
        description: 'Limit the credential to these service/path/method triples.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: 'self.gracePeriodDays < self.expirationDays',
        message: 'gracePeriodDays must be smaller than expirationDays',
      },
    ],
  },
);

export const keystoneApplicationCredentialStatusSchema = Type.Object({
  acID: Type.Optional(Type.String({ description: 'ID of the current credential in Keystone.' })),
  secretName: Type.Optional(Type.String({ description: 'Secret holding the current credential.' })),
  previousSecretName: Type.Optional(
    Type.String({ description: 'Secret of the credential before the last rotation (kept for consumers).' }),
  ),
  conditions: Type.Optional(conditionListSchema),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  rotationEligibleAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'expiresAt - gracePeriodDays: rotation from then on.' }),
  ),
  lastRotated: Type.Optional(Type.String({ format: 'date-time' })),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  securityHash: Type.Optional(
    Type.String({ description: 'Hash of roles, accessRules and unrestricted; a change rotates at once.' }),
  ),
});

export const keystoneApplicationCredentialSchema = kindSchema(
  keystoneApplicationCredentialSpecSchema,
  keystoneApplicationCredentialStatusSchema,
  'KeystoneApplicationCredential keeps an application credential of a service user.',
);

export type AccessRule = Static<typeof accessRuleSchema>;
export type KeystoneApplicationCredentialSpec = Static<typeof keystoneApplicationCredentialSpecSchema>;
export type KeystoneApplicationCredentialStatus = Static<typeof keystoneApplicationCredentialStatusSchema>;
export type KeystoneApplicationCredential = KubeObject & {
  spec: KeystoneApplicationCredentialSpec;
  status?: KeystoneApplicationCredentialStatus;
};

/** The keys of an application credential Secret (upstream `ACIDSecretKey`, `ACSecretSecretKey`). */
export const ApplicationCredentialSecretKeys = { id: 'AC_ID', secret: 'AC_SECRET' } as const;

/** Labels on every application credential Secret: all of them, and those of one service. */
export const ApplicationCredentialLabels = {
  all: 'application-credentials',
  service: 'application-credential-service',
} as const;

/** Finalizers: the CR's own, and the one protecting each Secret until the CR releases it. */
export const ApplicationCredentialFinalizers = {
  cr: 'openstack.org/applicationcredential',
  secret: 'openstack.org/ac-secret-protection',
} as const;

/** A consumer's finalizer on the Secret it uses (`openstack.org/<service>-ac-consumer`): never revoked while held. */
export const acConsumerFinalizer = (service: string): string => `openstack.org/${service}-ac-consumer`;

export const isAcConsumerFinalizer = (f: string): boolean =>
  f.startsWith('openstack.org/') && f.endsWith('-ac-consumer');

/** The service a CR is for: its name without `ac-` (upstream names the CR `ac-<service>`). */
export const serviceOfAcName = (crName: string): string =>
  crName.startsWith('ac-') ? crName.slice(3) : crName;

/** `ac-<service>-<first 5 characters of the credential ID>-secret`, as upstream names it. */
export const acSecretName = (crName: string, acID: string): string =>
  `ac-${serviceOfAcName(crName)}-${acID.slice(0, 5)}-secret`;

/** Condition type and messages (upstream api/v1beta1/conditions.go). */
export const ApplicationCredentialConditionType = 'KeystoneApplicationCredentialReady';
export const ApplicationCredentialMessages = {
  init: 'ApplicationCredential not yet created',
  ready: 'ApplicationCredential ready',
  waiting: 'ApplicationCredential waiting for secret %s to be available',
  error: 'ApplicationCredential error occurred: %s',
} as const;
