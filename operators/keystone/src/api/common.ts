import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';

/**
 * Sub-schemas shared by the keystone kinds, with upstream's JSON field names (lib-common's
 * service, tls, topology and storage types, infra-operator's RabbitMqConfig).
 */

const stringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

/** The endpoint types a Service can be overridden for (upstream `service.Endpoint.Validate`). */
export const ServiceEndpointTypes = ['internal', 'public'] as const;
export type ServiceEndpointType = (typeof ServiceEndpointTypes)[number];

/** The subset of a Service spec an override may set (upstream `OverrideServiceSpec`). */
export const overrideServiceSpecSchema = Type.Object(
  {
    type: Type.Optional(Type.String({ description: 'ClusterIP, NodePort, LoadBalancer or ExternalName.' })),
    sessionAffinity: Type.Optional(Type.String()),
    loadBalancerSourceRanges: Type.Optional(
      Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    externalName: Type.Optional(Type.String()),
    externalTrafficPolicy: Type.Optional(Type.String()),
    sessionAffinityConfig: Type.Optional(
      Type.Object({
        clientIP: Type.Optional(
          Type.Object({ timeoutSeconds: Type.Optional(Type.Integer({ format: 'int32' })) }),
        ),
      }),
    ),
    ipFamilyPolicy: Type.Optional(Type.String()),
    loadBalancerClass: Type.Optional(Type.String()),
    internalTrafficPolicy: Type.Optional(Type.String()),
  },
  { description: 'A subset of the Service spec, merged over the generated one.' },
);

/** Labels and annotations an override adds to the generated Service (override wins). */
export const embeddedLabelsAnnotationsSchema = Type.Object({
  labels: Type.Optional(stringMap('Labels merged over the generated ones.')),
  annotations: Type.Optional(stringMap('Annotations merged over the generated ones.')),
});

/** Upstream `RoutedOverrideSpec`: a Service override plus the URL to publish for the endpoint. */
export const routedOverrideSpecSchema = Type.Object(
  {
    metadata: Type.Optional(embeddedLabelsAnnotationsSchema),
    spec: Type.Optional(overrideServiceSpecSchema),
    endpointURL: Type.Optional(Type.String({ description: 'Publish this URL instead of the Service URL.' })),
  },
  { description: 'Override for the Service of one endpoint type.' },
);
export type RoutedOverrideSpec = Static<typeof routedOverrideSpecSchema>;

/** Upstream (early) `MetalLBConfig`: expose an endpoint as a MetalLB LoadBalancer Service. */
export const metalLBConfigSchema = Type.Object({
  endpoint: Type.Union(
    ServiceEndpointTypes.map((e) => Type.Literal(e)),
    { description: 'The endpoint this Service serves: internal or public.' },
  ),
  ipAddressPool: Type.String({ minLength: 1, description: 'MetalLB IPAddressPool to take the VIP from.' }),
  sharedIP: Type.Optional(
    Type.Boolean({ default: true, description: 'Share the VIP with other Services (same sharing key).' }),
  ),
  sharedIPKey: Type.Optional(
    Type.String({
      default: '',
      description: 'Sharing key; defaults to the pool name when sharedIP is true.',
    }),
  ),
  loadBalancerIPs: Type.Optional(
    Type.Array(Type.String(), { description: 'IPs to request from the pool (two for dual stack).' }),
  ),
});
export type MetalLBConfig = Static<typeof metalLBConfigSchema>;

const genericServiceTls = Type.Object({
  secretName: Type.Optional(
    Type.String({
      description:
        'kubernetes.io/tls Secret (tls.crt, tls.key) this endpoint serves https with; empty: plain http.',
    }),
  ),
});

/** Upstream `tls.API`: pod-level TLS per endpoint and the CA bundle the pods trust. */
export const tlsApiSchema = Type.Object({
  api: Type.Optional(
    Type.Object({ internal: Type.Optional(genericServiceTls), public: Type.Optional(genericServiceTls) }),
  ),
  caBundleSecretName: Type.Optional(
    Type.String({
      description:
        "Secret whose tls-ca-bundle.pem is mounted as the pods' system CA bundle (and trusted by the operator).",
    }),
  ),
});

/** Upstream `TopoRef` (KeystoneAPI refuses it until topology is implemented). */
export const topoRefSchema = Type.Object({
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
});

/** infra-operator `RabbitMqConfig`: the RabbitMQ cluster (and user, vhost) of a TransportURL. */
export const notificationsBusSchema = Type.Object({
  cluster: Type.String({ minLength: 1 }),
  user: Type.Optional(Type.String()),
  vhost: Type.Optional(Type.String()),
});

const quantity = Type.Unsafe<string | number>({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
});

/** core/v1 ResourceRequirements. */
export const resourceRequirementsSchema = Type.Object(
  {
    limits: Type.Optional(Type.Record(Type.String(), quantity)),
    requests: Type.Optional(Type.Record(Type.String(), quantity)),
    claims: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), request: Type.Optional(Type.String()) }), {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
  },
  { description: 'Compute resources of the API container.' },
);
export type ResourceRequirements = Static<typeof resourceRequirementsSchema>;

const preserved = Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true });

/**
 * Upstream `KeystoneExtraMounts`: volumes and mounts added to the API pods (`propagation` empty,
 * `Keystone` or `All`); volumes and mounts are core/v1 objects, checked by the API server on the pods.
 */
export const extraMountsSchema = Type.Object({
  name: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  extraVol: Type.Array(
    Type.Object({
      extraVolType: Type.Optional(Type.String()),
      propagation: Type.Optional(Type.Array(Type.String())),
      volumes: Type.Array(preserved),
      mounts: Type.Array(preserved),
    }),
  ),
});
