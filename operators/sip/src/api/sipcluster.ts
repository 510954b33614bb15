import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import { conditionListSchema } from '@stackops/lib-common/schema';
import { MAX_NAME_LENGTH, ROLES } from './constants.js';
import { labelSelectorSchema } from './label-selector.js';
import { resourceMetadataSchema } from './metadata.js';
import { servicesSchema } from './services.js';

export const nodeCountSchema = Type.Object(
  {
    active: Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: 'Hosts that run the role.' }),
    standby: Type.Integer({
      minimum: 0,
      maximum: 1000,
      default: 0,
      description: 'Extra hosts kept for the role (e.g. slack for upgrades); labelled like active ones.',
    }),
  },
  { description: 'How many hosts the role needs: active + standby are scheduled.' },
);

export const nodeSetSchema = Type.Object(
  {
    labelSelector: Type.Optional(labelSelectorSchema),
    topologyKey: Type.Optional(
      Type.String({
        description:
          'A BareMetalHost label key: hosts with the same value are one topology domain, and a role gets at most one host per domain (e.g. a rack or server label). Hosts without the label are not constrained.',
      }),
    ),
    count: nodeCountSchema,
  },
  { description: 'Which hosts a role takes, how they spread and how many.' },
);

const roleList = ROLES.map((r) => `'${r}'`).join(', ');

export const sipClusterSpecSchema = Type.Object(
  {
    nodes: Type.Optional(
      Type.Record(Type.String(), nodeSetSchema, {
        maxProperties: ROLES.length,
        description: 'Hosts to schedule for each role: ControlPlane and/or Worker.',
        'x-kubernetes-validations': [
          {
            rule: `self.all(role, role in [${roleList}])`,
            message: `nodes: roles must be ${ROLES.join(' or ')}`,
          },
        ],
      }),
    ),
    services: servicesSchema,
  },
  { description: 'A tenant cluster’s hosts and support services.' },
);

export const roleStatusSchema = Type.Object({
  hosts: Type.Array(Type.String(), {
    description: 'The BareMetalHosts (namespace/name) labelled for the role, by name.',
  }),
  scheduled: Type.Integer({ description: 'How many hosts the role has.' }),
  requested: Type.Integer({ description: 'count.active + count.standby.' }),
});

export const sipClusterStatusSchema = Type.Object({
  conditions: Type.Optional(conditionListSchema),
  observedGeneration: Type.Optional(Type.Integer({ description: 'The generation the conditions describe.' })),
  nodes: Type.Optional(
    Type.Record(Type.String(), roleStatusSchema, { description: 'The hosts each role holds.' }),
  ),
});

export const sipClusterSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(resourceMetadataSchema),
    spec: sipClusterSpecSchema,
    status: Type.Optional(sipClusterStatusSchema),
  },
  {
    description: 'SIPCluster: the BareMetalHosts and support services of one tenant cluster.',
    'x-kubernetes-validations': [
      {
        rule: `size(self.metadata.name) <= ${MAX_NAME_LENGTH} && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')`,
        message: `metadata.name: a lowercase DNS label of at most ${MAX_NAME_LENGTH} characters, since it names the services (loadbalancer-controlplane-<name>) and labels the hosts`,
      },
    ],
  },
);

export type NodeCount = Static<typeof nodeCountSchema>;
export type NodeSet = Static<typeof nodeSetSchema>;
export type SIPClusterSpec = Static<typeof sipClusterSpecSchema>;
export type SIPClusterStatus = Static<typeof sipClusterStatusSchema>;
export type RoleStatus = Static<typeof roleStatusSchema>;
