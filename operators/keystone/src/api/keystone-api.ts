import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import type { KubeObject } from '@stackops/lib-common/client';
import { CONFIG_TEXT_MAX_LENGTH, conditionListSchema, kindSchema } from '@stackops/lib-common/schema';
import {
  extraMountsSchema,
  metalLBConfigSchema,
  notificationsBusSchema,
  resourceRequirementsSchema,
  routedOverrideSpecSchema,
  tlsApiSchema,
  topoRefSchema,
} from './common.js';

/** Image used when neither the CR nor RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT names one. */
export const KEYSTONE_API_DEFAULT_IMAGE =
  'quay.io/podified-antelope-centos9/openstack-keystone:current-podified';
export const KEYSTONE_API_IMAGE_ENV = 'RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT';
/** The key of `spec.secret` holding the MariaDB root password (used by the db-create Job). */
export { DB_ROOT_PASSWORD_KEY } from '@stackops/lib-common/database';

const celUrlWithScheme = (ep: string) =>
  `self.override.service['${ep}'].endpointURL.matches('^[a-zA-Z][a-zA-Z0-9+.-]*://.+')`;
const celHasEndpointUrl = (ep: string) =>
  `has(self.override) && has(self.override.service) && '${ep}' in self.override.service && ` +
  `has(self.override.service['${ep}'].endpointURL) && self.override.service['${ep}'].endpointURL != ''`;
const externalRules = (ep: string) => [
  {
    rule: `!self.externalKeystoneAPI || (${celHasEndpointUrl(ep)})`,
    message: `external Keystone API requires endpointURL to be set for ${ep} endpoint (spec.override.service.${ep}.endpointURL)`,
  },
  {
    rule: `!self.externalKeystoneAPI || !(${celHasEndpointUrl(ep)}) || ${celUrlWithScheme(ep)}`,
    message: `spec.override.service.${ep}.endpointURL: URL must include a scheme (e.g., http:// or https://)`,
  },
];

/** A Secret's key: letters, digits, -, _ and ., not . or ..-led (the API server's rule for Secret keys; RE2, no lookahead). */
const SECRET_KEY_PATTERN = '^\\.?[-_a-zA-Z0-9][-._a-zA-Z0-9]*$';

/** A cron schedule's shape (five fields or a shorthand), as far as CEL can check it. */
const CRON_SHAPE_RULE =
  "self.matches('^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$') || self.matches('^\\\\s*[0-9A-Za-z*?/,-]+(\\\\s+[0-9A-Za-z*?/,-]+){4}\\\\s*$')";

export const passwordSelectorsSchema = Type.Object(
  {
    admin: Type.Optional(
      Type.String({
        default: 'AdminPassword',
        minLength: 1,
        maxLength: 253,
        pattern: SECRET_KEY_PATTERN,
        description: 'Key of the admin password in spec.secret.',
      }),
    ),
    database: Type.Optional(
      Type.String({
        default: 'KeystoneDatabasePassword',
        minLength: 1,
        maxLength: 253,
        pattern: SECRET_KEY_PATTERN,
        description: 'Key of the keystone database account password in spec.secret.',
      }),
    ),
  },
  { default: { admin: 'AdminPassword', database: 'KeystoneDatabasePassword' } },
);

export const httpdCustomizationSchema = Type.Object(
  {
    processNumber: Type.Optional(
      Type.Integer({
        default: 3,
        minimum: 1,
        maximum: 32,
        format: 'int32',
        description: 'WSGI processes per vhost.',
      }),
    ),
    customConfigSecret: Type.Optional(
      Type.String({
        description:
          'Secret whose keys become httpd_custom_<endpoint>_<key> files included in each vhost (e.g. mod_auth_openidc).',
      }),
    ),
  },
  { default: { processNumber: 3 } },
);

export const keystoneApiSpecSchema = Type.Object(
  {
    containerImage: Type.Optional(
      Type.String({
        description: `Keystone image; empty means ${KEYSTONE_API_IMAGE_ENV} or the built-in default.`,
        pattern: '^\\S*$',
      }),
    ),
    databaseInstance: Type.Optional(
      Type.String({
        default: 'openstack',
        minLength: 1,
        maxLength: 63,
        pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$',
        description: 'Name of the MariaDB Service the keystone database is created on.',
      }),
    ),
    databaseAccount: Type.Optional(
      Type.String({
        default: 'keystone',
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'Database user keystone connects as (dashes become underscores in SQL).',
      }),
    ),
    memcachedInstance: Type.Optional(
      Type.String({
        default: 'memcached',
        maxLength: 253,
        description:
          "infra-operator Memcached CR (or, without one, a Service) for [cache]; upstream's default `memcached`. An explicit empty string turns caching off (a stackops extension).",
      }),
    ),
    region: Type.Optional(Type.String({ default: 'regionOne', minLength: 1 })),
    adminProject: Type.Optional(Type.String({ default: 'admin', minLength: 1 })),
    adminUser: Type.Optional(Type.String({ default: 'admin', minLength: 1 })),
    replicas: Type.Optional(Type.Integer({ default: 1, minimum: 0, maximum: 32, format: 'int32' })),
    secret: Type.String({ minLength: 1, description: 'Secret holding the admin and database passwords.' }),
    enableSecureRBAC: Type.Optional(Type.Boolean({ default: true })),
    trustFlushArgs: Type.Optional(Type.String({ default: '', pattern: '^[A-Za-z0-9 =._/-]*$' })),
    trustFlushSchedule: Type.Optional(
      Type.String({
        default: '1 * * * *',
        minLength: 1,
        maxLength: 128,
        description:
          "The trust_flush CronJob's schedule: five cron fields (minute hour day-of-month month day-of-week) or @hourly, @daily, …",
        // The shape only; the operator checks each field's range (InputReady).
        'x-kubernetes-validations': [
          {
            rule: CRON_SHAPE_RULE,
            message:
              'spec.trustFlushSchedule must be a cron expression: five fields (minute hour day-of-month month day-of-week) of digits, names, *, ?, -, / and , or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
          },
        ],
      }),
    ),
    trustFlushSuspend: Type.Optional(Type.Boolean({ default: false })),
    fernetRotationDays: Type.Optional(
      Type.Integer({ default: 1, minimum: 1, maximum: 365, format: 'int32' }),
    ),
    // Each key is generated, kept in the `keystone` Secret and mounted: a bound keeps one tenant from
    // growing the shared operator (and that Secret) without limit.
    fernetMaxActiveKeys: Type.Optional(
      Type.Integer({ default: 5, minimum: 3, maximum: 100, format: 'int32' }),
    ),
    passwordSelectors: Type.Optional(passwordSelectorsSchema),
    nodeSelector: Type.Optional(Type.Record(Type.String(), Type.String())),
    preserveJobs: Type.Optional(Type.Boolean({ default: false })),
    customServiceConfig: Type.Optional(
      Type.String({
        description: 'Written as keystone.conf.d/custom.conf.',
        maxLength: CONFIG_TEXT_MAX_LENGTH,
      }),
    ),
    defaultConfigOverwrite: Type.Optional(
      // At most 16 files of 64 KiB: with customServiceConfig they fit in the one config Secret (1 MiB).
      Type.Record(Type.String(), Type.String({ maxLength: 64 * 1024 }), {
        description: 'Extra files added to the config Secret.',
        maxProperties: 16,
        'x-kubernetes-validations': [
          {
            rule: "self.all(k, k.size() <= 253 && k.matches('^[-._a-zA-Z0-9]+$') && k != '.' && !k.startsWith('..'))",
            message:
              'spec.defaultConfigOverwrite keys must be file names (letters, digits, -, _ and .), not . and not starting with ..',
          },
        ],
      }),
    ),
    httpdCustomization: Type.Optional(httpdCustomizationSchema),
    resources: Type.Optional(resourceRequirementsSchema),
    networkAttachments: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }), {
        description: 'NetworkAttachmentDefinition names to attach the pods to.',
      }),
    ),
    networkAttachents: Type.Optional(
      Type.Array(Type.String({ maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }), {
        description: 'Deprecated misspelling of networkAttachments from the upstream README; merged into it.',
      }),
    ),
    override: Type.Optional(
      Type.Object({
        service: Type.Optional(
          Type.Record(Type.String(), routedOverrideSpecSchema, {
            maxProperties: 2,
            'x-kubernetes-validations': [
              {
                rule: "self.all(k, k == 'internal' || k == 'public')",
                message: "spec.override.service keys must be 'internal' or 'public'",
              },
            ],
          }),
        ),
      }),
    ),
    externalEndpoints: Type.Optional(
      Type.Array(metalLBConfigSchema, {
        maxItems: 2,
        description: 'Expose endpoints as MetalLB LoadBalancer Services (older form of override.service).',
        'x-kubernetes-validations': [
          {
            rule: 'self.all(x, self.exists_one(y, y.endpoint == x.endpoint))',
            message: 'spec.externalEndpoints: each endpoint may be listed once',
          },
        ],
      }),
    ),
    rabbitMqClusterName: Type.Optional(
      Type.String({
        description:
          'Deprecated: the RabbitMQ cluster (infra-operator) notifications go to; use notificationsBus.cluster.',
      }),
    ),
    notificationsBus: Type.Optional(notificationsBusSchema),
    tls: Type.Optional(tlsApiSchema),
    apiTimeout: Type.Optional(Type.Integer({ default: 60, minimum: 10, description: 'Apache TimeOut (s).' })),
    topologyRef: Type.Optional(topoRefSchema),
    extraMounts: Type.Optional(Type.Array(extraMountsSchema, { default: [] })),
    federatedRealmConfig: Type.Optional(
      Type.String({
        description:
          'Secret whose federation-config.json (file name → JSON content) is mounted file by file and copied to /var/lib/httpd/metadata/.',
      }),
    ),
    externalKeystoneAPI: Type.Optional(Type.Boolean({ default: false })),
  },
  {
    'x-kubernetes-validations': [
      ...externalRules('public'),
      ...externalRules('internal'),
      {
        rule:
          "!has(self.rabbitMqClusterName) || self.rabbitMqClusterName == '' || !has(self.notificationsBus) || " +
          'self.notificationsBus.cluster == self.rabbitMqClusterName',
        message: 'spec.rabbitMqClusterName (deprecated) and spec.notificationsBus.cluster must not differ',
      },
    ],
  },
);

export const keystoneApiStatusSchema = Type.Object({
  readyCount: Type.Optional(Type.Integer({ format: 'int32' })),
  hash: Type.Optional(Type.Record(Type.String(), Type.String())),
  apiEndpoints: Type.Optional(Type.Record(Type.String(), Type.String())),
  conditions: Type.Optional(conditionListSchema),
  databaseHostname: Type.Optional(Type.String()),
  networkAttachments: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  transportURLSecret: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  lastAppliedTopology: Type.Optional(topoRefSchema),
  region: Type.Optional(Type.String()),
});

export const keystoneApiSchema = kindSchema(
  keystoneApiSpecSchema,
  keystoneApiStatusSchema,
  'KeystoneAPI deploys the OpenStack Identity service.',
);

export type KeystoneAPISpec = Static<typeof keystoneApiSpecSchema>;
export type KeystoneAPIStatus = Static<typeof keystoneApiStatusSchema>;
export type KeystoneAPI = KubeObject & { spec: KeystoneAPISpec; status?: KeystoneAPIStatus };
