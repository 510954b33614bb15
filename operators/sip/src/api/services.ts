import type { Static, TProperties } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import { MAX_WORKER_PORTS } from './constants.js';

const port = (description: string) => Type.Integer({ minimum: 1, maximum: 65535, description });

/** Fields every service shares (upstream `SIPClusterService`). */
const commonServiceFields = {
  image: Type.Optional(
    Type.String({
      description:
        "Container image. When empty the operator's default for the service is used (see the RELATED_IMAGE_* variables).",
    }),
  ),
  nodeLabels: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        "Node selector for the service's pods (upstream declared this field without using it; here it is the pods' nodeSelector).",
    }),
  ),
  nodeInterfaceId: Type.Optional(
    Type.String({
      description:
        "The network (networks[].id, or else a link id) in each host's networkData whose ip_address the service uses. When empty, the first network with an address.",
    }),
  ),
  clusterIP: Type.Optional(
    Type.String({
      description:
        'Not supported yet (upstream accepts and ignores it): only empty is accepted, so a manifest that sets it is refused instead of silently ignored.',
      'x-kubernetes-validations': [{ rule: "self == ''", message: 'clusterIP is not supported yet' }],
    }),
  ),
} satisfies TProperties;

export const loadBalancerControlPlaneSchema = Type.Object(
  {
    ...commonServiceFields,
    nodePort: port('NodePort that exposes the tenant API server (port 6443) on the management cluster.'),
  },
  { description: 'HAProxy load balancer in front of the ControlPlane hosts (port 6443).' },
);

export const portRangeSchema = Type.Object(
  {
    start: port('First port of the range.'),
    end: port('Last port of the range (inclusive).'),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: 'self.end >= self.start',
        message: 'nodePortRange: end must be greater than or equal to start',
      },
      {
        rule: `self.end - self.start < ${MAX_WORKER_PORTS}`,
        message: `nodePortRange: at most ${MAX_WORKER_PORTS} ports`,
      },
    ],
  },
);

export const loadBalancerWorkerSchema = Type.Object(
  {
    ...commonServiceFields,
    nodePortRange: portRangeSchema,
  },
  {
    description:
      'HAProxy load balancer in front of the Worker hosts: every port of the range is forwarded to the same port on each worker.',
  },
);

export const bmcOptionsSchema = Type.Object(
  {
    proxy: Type.Boolean({
      default: false,
      description:
        'When false, the jump host sets NO_PROXY=* and no_proxy=* so BMC requests bypass any proxy (upstream meant to and never did).',
    }),
  },
  { description: 'How the jump host reaches the hosts’ BMCs.' },
);

export const jumpHostSchema = Type.Object(
  {
    ...commonServiceFields,
    nodePort: port('NodePort of the jump host’s ssh port (22).'),
    bmc: Type.Optional(bmcOptionsSchema),
    sshAuthorizedKeys: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 8192,
          'x-kubernetes-validations': [
            {
              rule: "self.matches('^(\\\\S+ )?(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\\\\.com) [A-Za-z0-9+/]+=*( .*)?$')",
              message:
                'sshAuthorizedKeys: each entry must be an OpenSSH authorized_keys line: [options] <key type> <base64 key> [comment]',
            },
          ],
        }),
        { maxItems: 64, description: 'authorized_keys lines for the jump host’s `ubuntu` user.' },
      ),
    ),
    nodeSSHPrivateKeys: Type.String({
      minLength: 1,
      description:
        'Name of a Secret in the SIPCluster’s namespace; each key is one ssh private key the jump host uses for the hosts.',
    }),
  },
  { description: 'An ssh jump host into the tenant cluster’s hosts, with a BMC reboot utility.' },
);

export const secretKeyRefSchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'Secret name in the SIPCluster’s namespace.' }),
  key: Type.String({ minLength: 1, default: 'clientSecret', description: 'Key in the Secret.' }),
});

export const dexStaticClientSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'OAuth2 client id (e.g. kubernetes).' }),
    name: Type.Optional(Type.String({ description: 'Display name.' })),
    redirectURIs: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: 32,
      description: 'Allowed redirect URIs.',
    }),
    public: Type.Optional(Type.Boolean({ description: 'A public client (no secret).' })),
    secretRef: Type.Optional(secretKeyRefSchema),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '(has(self.public) && self.public) != has(self.secretRef)',
        message: 'auth.staticClients: a client is either public or has a secretRef, not both and not neither',
      },
    ],
  },
);

export const dexConnectorSchema = Type.Object({
  type: Type.String({ minLength: 1, description: 'Dex connector type (ldap, github, oidc, …).' }),
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  config: Type.Optional(
    Type.Object(
      {},
      {
        'x-kubernetes-preserve-unknown-fields': true,
        description:
          'The connector’s configuration, passed to Dex as is. Reference secrets as $VARIABLES set through envFromSecret.',
      },
    ),
  ),
});

export const authSchema = Type.Object(
  {
    ...commonServiceFields,
    nodePort: port('NodePort of Dex’s port (5556).'),
    issuer: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'OIDC issuer URL, the tenant API server’s --oidc-issuer-url. Default: http(s)://auth-<name>.<namespace>.svc:5556/dex.',
      }),
    ),
    tlsSecret: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A kubernetes.io/tls Secret in the SIPCluster’s namespace; when set Dex serves HTTPS with it.',
      }),
    ),
    staticClients: Type.Optional(Type.Array(dexStaticClientSchema, { maxItems: 32 })),
    connectors: Type.Array(dexConnectorSchema, {
      minItems: 1,
      maxItems: 32,
      description: 'Dex connectors (identity providers); Dex needs at least one.',
    }),
    envFromSecret: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A Secret whose keys become environment variables of Dex (for $VARIABLES in connectors).',
      }),
    ),
  },
  {
    description:
      'An OIDC provider (Dex) for the tenant cluster, as the SIP design describes (upstream removed it before implementing it).',
  },
);

const oneAtMost = (what: string) => ({
  maxItems: 1,
  description: `${what} At most one: its objects are named after the SIPCluster.`,
});

/** A rule that two single-port services do not use the same nodePort. */
function distinctPorts(a: string, b: string) {
  return {
    rule: `!has(self.${a}) || !has(self.${b}) || self.${a}.all(x, self.${b}.all(y, x.nodePort != y.nodePort))`,
    message: `services: ${a} and ${b} must use different nodePorts`,
  };
}

/** A rule that a single-port service's nodePort lies outside the worker load balancer's range. */
function outsideWorkerRange(a: string) {
  return {
    rule: `!has(self.${a}) || !has(self.loadBalancerWorker) || self.${a}.all(x, self.loadBalancerWorker.all(w, x.nodePort < w.nodePortRange.start || x.nodePort > w.nodePortRange.end))`,
    message: `services: ${a} nodePort must lie outside loadBalancerWorker nodePortRange`,
  };
}

const SINGLE_PORT_SERVICES = ['loadBalancerControlPlane', 'jumpHost', 'auth'] as const;

export const servicesSchema = Type.Object(
  {
    loadBalancerControlPlane: Type.Optional(
      Type.Array(loadBalancerControlPlaneSchema, oneAtMost('Load balancer for the tenant API server.')),
    ),
    loadBalancerWorker: Type.Optional(
      Type.Array(loadBalancerWorkerSchema, oneAtMost('Load balancer for workloads on the workers.')),
    ),
    jumpHost: Type.Optional(Type.Array(jumpHostSchema, oneAtMost('ssh jump host.'))),
    auth: Type.Optional(Type.Array(authSchema, oneAtMost('OIDC provider (Dex).'))),
  },
  {
    description: 'The per-cluster infrastructure services SIP deploys in the SIPCluster’s namespace.',
    'x-kubernetes-validations': [
      ...SINGLE_PORT_SERVICES.flatMap((a, i) =>
        SINGLE_PORT_SERVICES.slice(i + 1).map((b) => distinctPorts(a, b)),
      ),
      ...SINGLE_PORT_SERVICES.map(outsideWorkerRange),
    ],
  },
);

export type LoadBalancerControlPlaneService = Static<typeof loadBalancerControlPlaneSchema>;
export type LoadBalancerWorkerService = Static<typeof loadBalancerWorkerSchema>;
export type JumpHostService = Static<typeof jumpHostSchema>;
export type AuthService = Static<typeof authSchema>;
export type DexStaticClient = Static<typeof dexStaticClientSchema>;
export type DexConnector = Static<typeof dexConnectorSchema>;
export type SIPClusterServices = Static<typeof servicesSchema>;
