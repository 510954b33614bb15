import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import {
  resourceRequirementsSchema,
  routedOverrideSpecSchema,
  ServiceEndpointTypes,
  tlsApiSchema,
  topoRefSchema,
} from '@stackops/keystone-operator';
import { CONFIG_TEXT_MAX_LENGTH, conditionListSchema, kindSchema } from '@stackops/lib-common/schema';
import { ALLOWED_CONFIG_OVERWRITE_KEYS } from './constants.js';

const celList = (items: readonly string[]) => `[${items.map((k) => `'${k}'`).join(', ')}]`;

/** `override.service`: keyed by endpoint type; only `internal` and `public` exist. */
export const serviceOverrideMapSchema = Type.Record(Type.String(), routedOverrideSpecSchema, {
  description: 'Overrides of the generated Services per endpoint type (internal, public).',
  maxProperties: ServiceEndpointTypes.length,
  'x-kubernetes-validations': [
    {
      rule: `self.all(k, k in ${celList(ServiceEndpointTypes)})`,
      message: `spec.override.service keys must be one of: ${ServiceEndpointTypes.join(', ')}`,
    },
  ],
});

/** A Secret's key: letters, digits, -, _ and ., not . or ..-led (the API server's rule for Secret keys; RE2, no lookahead). */
const SECRET_KEY_PATTERN = '^\\.?[-_a-zA-Z0-9][-._a-zA-Z0-9]*$';
/** A NetworkAttachmentDefinition's name: a DNS-1123 subdomain. */
const NAD_NAME = {
  maxLength: 253,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
};

export const passwordSelectorsSchema = Type.Object(
  {
    service: Type.String({
      default: 'PlacementPassword',
      minLength: 1,
      maxLength: 253,
      pattern: SECRET_KEY_PATTERN,
      description: 'Key in `secret` holding the placement service user password.',
    }),
    database: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        pattern: SECRET_KEY_PATTERN,
        description:
          'Key in `secret` holding the database account password. Unset: `PlacementDatabasePassword` when `secret` has it, else a generated password kept in Secret `<databaseAccount>-db-secret`.',
      }),
    ),
  },
  { default: { service: 'PlacementPassword' }, description: 'Keys of the passwords in `secret`.' },
);

const int32 = (minimum: number, description: string) =>
  Type.Optional(Type.Integer({ format: 'int32', minimum, description }));

/** lib-common's `ProbeConf`: a field left unset keeps placement's default. */
export const probeConfSchema = Type.Object(
  {
    type: Type.Optional(
      Type.String({ enum: ['HTTP', 'Exec', ''], description: 'Probe handler: HTTP (default) or Exec.' }),
    ),
    path: Type.Optional(Type.String({ pattern: '^(/.*)?$', description: 'HTTP path (default /).' })),
    command: Type.Optional(Type.Array(Type.String(), { description: 'Command of an Exec probe.' })),
    port: Type.Optional(
      Type.Integer({ format: 'int32', minimum: 1, maximum: 65535, description: 'HTTP port (default 8778).' }),
    ),
    scheme: Type.Optional(
      Type.String({
        enum: ['HTTP', 'HTTPS'],
        description: 'HTTP scheme (default HTTPS when the public endpoint has TLS, else HTTP).',
      }),
    ),
    initialDelaySeconds: int32(0, 'Seconds before the first probe.'),
    timeoutSeconds: int32(1, 'Probe timeout in seconds.'),
    periodSeconds: int32(1, 'Seconds between probes.'),
    failureThreshold: int32(1, 'Failures before the probe counts as failed.'),
  },
  {
    description: 'Probe settings that replace placement defaults field by field.',
    'x-kubernetes-validations': [
      {
        rule: "!has(self.type) || self.type != 'Exec' || (has(self.command) && size(self.command) > 0)",
        message: 'command is required for exec probe type',
      },
    ],
  },
);

export const probeOverridesSchema = Type.Object(
  {
    livenessProbes: Type.Optional(probeConfSchema),
    readinessProbes: Type.Optional(probeConfSchema),
    startupProbes: Type.Optional(probeConfSchema),
  },
  { description: 'Probes of the API containers.' },
);

export const placementApiSpecSchema = Type.Object(
  {
    containerImage: Type.Optional(
      Type.String({
        pattern: '^\\S*$',
        description:
          'Placement API image. When empty the operator uses RELATED_IMAGE_PLACEMENT_API_IMAGE_URL_DEFAULT, else the upstream image.',
      }),
    ),
    apiTimeout: Type.Optional(
      Type.Integer({
        default: 60,
        minimum: 0,
        description: 'Timeout in seconds of the API (httpd TimeOut): at least 10, or 0 for the default 60.',
        'x-kubernetes-validations': [
          // upstream's webhook turns 0 into 60 before its minimum of 10 is checked
          { rule: 'self == 0 || self >= 10', message: 'apiTimeout must be at least 10 (or 0 for 60)' },
        ],
      }),
    ),
    serviceUser: Type.Optional(
      Type.String({
        default: 'placement',
        minLength: 1,
        description: 'Keystone user the service registers and authenticates as.',
      }),
    ),
    databaseInstance: Type.String({
      minLength: 1,
      description: 'Name of the MariaDB/Galera instance (its Service) that holds the placement database.',
    }),
    databaseAccount: Type.Optional(
      Type.String({
        default: 'placement',
        pattern: '^[A-Za-z0-9_]{1,64}$',
        description: 'Database account (user) placement connects as: 1-64 letters, digits or underscores.',
      }),
    ),
    replicas: Type.Optional(
      Type.Integer({
        format: 'int32',
        default: 1,
        minimum: 0,
        maximum: 32,
        description: 'Number of placement API pods.',
      }),
    ),
    secret: Type.String({
      minLength: 1,
      description:
        'Secret holding the service and database passwords (keys named by passwordSelectors) and DbRootPassword.',
    }),
    passwordSelectors: Type.Optional(passwordSelectorsSchema),
    nodeSelector: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Node selector for the API pods and the db-sync Job.',
      }),
    ),
    preserveJobs: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Keep finished Jobs (no TTL) e.g. to read their logs.',
      }),
    ),
    customServiceConfig: Type.Optional(
      Type.String({
        description:
          'Raw INI added as /etc/placement/placement.conf.d/custom.conf; it overrides the generated placement.conf.',
        maxLength: CONFIG_TEXT_MAX_LENGTH,
      }),
    ),
    defaultConfigOverwrite: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: CONFIG_TEXT_MAX_LENGTH }), {
        description: 'Files that replace defaults; only policy.yaml is accepted.',
        'x-kubernetes-validations': [
          {
            rule: `self.all(k, k in ${celList(ALLOWED_CONFIG_OVERWRITE_KEYS)})`,
            message: `spec.defaultConfigOverwrite: Only the following keys are valid: ${ALLOWED_CONFIG_OVERWRITE_KEYS.join(', ')}`,
          },
        ],
      }),
    ),
    resources: Type.Optional(resourceRequirementsSchema),
    networkAttachments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, ...NAD_NAME }), {
        description: 'NetworkAttachmentDefinition names (in this namespace) the API pods attach to.',
      }),
    ),
    networkAttachents: Type.Optional(
      Type.Array(Type.String({ minLength: 1, ...NAD_NAME }), {
        description:
          'Misspelling of networkAttachments used by the upstream README example; accepted and merged into networkAttachments.',
      }),
    ),
    override: Type.Optional(
      Type.Object(
        { service: Type.Optional(serviceOverrideMapSchema), probes: Type.Optional(probeOverridesSchema) },
        { description: 'Overrides of generated child objects.' },
      ),
    ),
    tls: Type.Optional(tlsApiSchema),
    topologyRef: Type.Optional(
      Type.Object(topoRefSchema.properties, {
        description:
          "infra-operator Topology CR whose spread constraints and affinity the pods get; only in the CR's namespace.",
      }),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          applicationCredentialSecret: Type.Optional(
            Type.String({
              maxLength: 253,
              description:
                'Secret with AC_ID and AC_SECRET of a keystone application credential (a KeystoneApplicationCredential writes it); placement logs in with it instead of its password.',
            }),
          ),
        },
        { description: 'How placement authenticates to keystone.' },
      ),
    ),
  },
  { description: 'Desired state of a Placement API.' },
);

export const placementApiStatusSchema = Type.Object(
  {
    readyCount: Type.Optional(Type.Integer({ format: 'int32', description: 'Ready API pods.' })),
    hash: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Hashes of inputs and finished Jobs.' }),
    ),
    apiEndpoints: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'URLs registered in keystone, by endpoint type.',
      }),
    ),
    conditions: Type.Optional(conditionListSchema),
    databaseHostname: Type.Optional(Type.String({ description: 'Hostname of the database service.' })),
    networkAttachments: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description: 'IPs of the pods on each attached network (`<namespace>/<nad>`).',
      }),
    ),
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
    applicationCredentialSecret: Type.Optional(
      Type.String({
        description:
          'The application credential Secret placement holds (its consumer finalizer) for the running pods: the one in spec once they run with it, the previous one until then.',
      }),
    ),
    lastAppliedTopology: Type.Optional(
      Type.Object(topoRefSchema.properties, { description: 'The Topology the pods were last placed by.' }),
    ),
  },
  { description: 'Observed state of a Placement API.' },
);

export const placementApiSchema = kindSchema(
  placementApiSpecSchema,
  placementApiStatusSchema,
  'PlacementAPI deploys the OpenStack Placement API and registers it in keystone.',
);

/** `apiTimeout` 0 means upstream's default (its webhook writes 60). */
export const DEFAULT_API_TIMEOUT = 60;

/** Fields the CRD defaults: always present on objects read from the API server. */
type Defaulted =
  | 'apiTimeout'
  | 'serviceUser'
  | 'databaseAccount'
  | 'replicas'
  | 'passwordSelectors'
  | 'preserveJobs';
/** The spec as the API server returns it (defaults applied). */
export type PlacementAPISpec = Omit<Static<typeof placementApiSpecSchema>, Defaulted> &
  Required<Pick<Static<typeof placementApiSpecSchema>, Defaulted>>;
/** The spec as a user writes it (defaulted fields may be left out). */
export type PlacementAPISpecInput = Static<typeof placementApiSpecSchema>;
export type PlacementAPIStatus = Static<typeof placementApiStatusSchema>;
export type PlacementAPIPasswordSelectors = Static<typeof passwordSelectorsSchema>;
export type ProbeConf = Static<typeof probeConfSchema>;
export type ProbeOverrides = Static<typeof probeOverridesSchema>;
