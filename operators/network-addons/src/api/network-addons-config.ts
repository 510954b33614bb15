import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';
import { kindSchema } from '@stackops/lib-common/schema';
import { CRI_SOCKET_PATHS, IMAGE_PULL_POLICIES } from './constants.js';
import { GO_DURATION_PATTERN } from './duration.js';
import { MAC_ADDRESS_PATTERN } from './mac.js';
import { placementConfigurationSchema } from './placement.js';
import { tlsSecurityProfileSchema } from './tls-security-profile.js';

/** A component switched on by its mere presence (`linuxBridge: {}`). */
const toggle = (description: string) => Type.Object({}, { description });

const macAddress = (description: string) =>
  Type.String({
    // Empty means "not set", as upstream treats it.
    pattern: `^$|${MAC_ADDRESS_PATTERN}`,
    description: `${description} A 48-bit MAC address (02:00:00:00:00:00, 02-00-00-00-00-00 or 0200.0000.0000).`,
  });

const goDuration = (description: string) =>
  Type.String({ pattern: GO_DURATION_PATTERN, description: `${description} A Go duration such as 48h0m0s.` });

export const kubeMacPoolSchema = Type.Object(
  {
    rangeStart: Type.Optional(macAddress('First MAC address of the pool.')),
    rangeEnd: Type.Optional(macAddress('Last MAC address of the pool.')),
  },
  {
    description:
      'Deploy KubeMacPool, which allocates MAC addresses of secondary interfaces from a pool. Give both ends of the range or neither; without a range one is generated (02:XX:XX:00:00:00-02:XX:XX:FF:FF:FF) and kept.',
  },
);

export const selfSignConfigurationSchema = Type.Object(
  {
    caRotateInterval: goDuration('How long the KubeMacPool webhook CA is valid before it is rotated.'),
    caOverlapInterval: goDuration(
      'How long the previous CA stays trusted after a rotation; <= caRotateInterval.',
    ),
    certRotateInterval: goDuration('How long a serving certificate is valid; <= caRotateInterval.'),
    certOverlapInterval: goDuration(
      'How long the previous serving certificate stays valid; <= certRotateInterval.',
    ),
  },
  { description: 'Certificate rotation of the KubeMacPool webhook. All four intervals are required.' },
);

export const networkAddonsConfigSpecSchema = Type.Object(
  {
    multus: Type.Optional(toggle('Deploy the Multus meta CNI plugin (DaemonSet multus).')),
    multusDynamicNetworks: Type.Optional(
      Type.Object(
        {
          hostCRISocketPath: Type.Optional(
            Type.Union(
              CRI_SOCKET_PATHS.map((p) => Type.Literal(p)),
              { description: 'Path of the CRI socket on the host (default /run/crio/crio.sock).' },
            ),
          ),
        },
        {
          description: 'Deploy the Multus dynamic networks controller (interface hot-plug). Requires multus.',
        },
      ),
    ),
    linuxBridge: Type.Optional(toggle('Deploy the Linux bridge CNI plugin and the bridge marker.')),
    kubeMacPool: Type.Optional(kubeMacPoolSchema),
    nmstate: Type.Optional(
      toggle('Deploy the NMState handler DaemonSet (declarative host network configuration, experimental).'),
    ),
    ovs: Type.Optional(toggle('Deploy the Open vSwitch CNI plugin and its marker.')),
    macvtap: Type.Optional(
      Type.Object(
        {
          devicePluginConfig: Type.Optional(
            Type.String({
              description: 'Name of the ConfigMap with the macvtap device plugin configuration.',
            }),
          ),
        },
        { description: 'Deploy the macvtap CNI plugin and device plugin.' },
      ),
    ),
    kubeSecondaryDNS: Type.Optional(
      Type.Object(
        {
          domain: Type.Optional(Type.String({ description: 'DNS domain of the secondary networks.' })),
          nameServerIP: Type.Optional(
            Type.String({ description: 'IP address of the secondary DNS server.' }),
          ),
        },
        { description: 'Deploy KubeSecondaryDNS (DNS for the secondary interfaces of VMs).' },
      ),
    ),
    kubevirtIpamController: Type.Optional(
      Type.Object(
        {
          defaultNetworkNADNamespace: Type.Optional(
            Type.String({
              description: 'Namespace of the cluster default-network NetworkAttachmentDefinition.',
            }),
          ),
        },
        { description: 'Deploy the kubevirt IPAM extensions controller (persistent IPs for VMs).' },
      ),
    ),
    imagePullPolicy: Type.Optional(
      Type.Union(
        IMAGE_PULL_POLICIES.map((p) => Type.Literal(p)),
        {
          description:
            'Image pull policy of every component (default IfNotPresent). It cannot be changed once components are deployed.',
        },
      ),
    ),
    selfSignConfiguration: Type.Optional(selfSignConfigurationSchema),
    placementConfiguration: Type.Optional(placementConfigurationSchema),
    tlsSecurityProfile: Type.Optional(tlsSecurityProfileSchema),
  },
  { description: 'Which network add-ons to deploy, and how. Every field is optional.' },
);

export const openshiftConditionSchema = Type.Object({
  type: Type.String({ description: 'Available, Progressing or Degraded.' }),
  status: Type.String({ description: 'True, False or Unknown.' }),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  lastHeartbeatTime: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time', nullable: true })),
});

export const containerSchema = Type.Object({
  parentKind: Type.String({ description: 'DaemonSet or Deployment.' }),
  parentName: Type.String(),
  name: Type.String(),
  image: Type.String(),
});

export const networkAddonsConfigStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(openshiftConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        description:
          'metadata.generation this status describes (not upstream; lets `kubectl wait` ignore a status older than the spec).',
      }),
    ),
    kubeMacPoolRange: Type.Optional(
      Type.Object(
        { rangeStart: Type.String(), rangeEnd: Type.String() },
        {
          description:
            'The MAC range KubeMacPool was last given (not upstream): kept here too, so losing the applied-config ConfigMap does not change it.',
        },
      ),
    ),
    operatorVersion: Type.Optional(Type.String({ description: 'Version of the running operator.' })),
    observedVersion: Type.Optional(
      Type.String({ description: 'Operator version whose configuration was last fully rolled out.' }),
    ),
    targetVersion: Type.Optional(Type.String({ description: 'Version the operator is rolling out.' })),
    containers: Type.Optional(
      Type.Array(containerSchema, { description: 'Containers of the deployed DaemonSets and Deployments.' }),
    ),
  },
  { description: 'Conditions (Available, Progressing, Degraded), versions and deployed containers.' },
);

/** The whole object; metadata is left to the API server (a CRD may not constrain it). */
export const networkAddonsConfigSchema = kindSchema(
  Type.Optional(networkAddonsConfigSpecSchema),
  networkAddonsConfigStatusSchema,
  'NetworkAddonsConfig: the cluster-wide configuration of network add-ons. Only the object named `cluster` is acted on.',
);

export type NetworkAddonsConfigSpec = Static<typeof networkAddonsConfigSpecSchema>;
export type NetworkAddonsConfigStatus = Static<typeof networkAddonsConfigStatusSchema>;
export type KubeMacPoolSpec = Static<typeof kubeMacPoolSchema>;
export type SelfSignConfiguration = Static<typeof selfSignConfigurationSchema>;
export type OpenshiftCondition = Static<typeof openshiftConditionSchema>;
export type DeployedContainer = Static<typeof containerSchema>;
