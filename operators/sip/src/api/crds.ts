import type { CrdDefinition } from '@stackops/lib-common/schema';
import { bareMetalHostSchema } from './baremetalhost.js';
import {
  BMH_KIND,
  BMH_PLURAL,
  LABEL_CLUSTER_NAME,
  METAL3_GROUP,
  METAL3_VERSION,
  SIP_CLUSTER_KIND,
  SIP_CLUSTER_PLURAL,
  SIP_GROUP,
  SIP_VERSION,
} from './constants.js';
import { sipClusterSchema } from './sipcluster.js';

const readyCondition = (field: 'status' | 'reason' | 'message') =>
  `.status.conditions[?(@.type=="Ready")].${field}`;

export const sipClusterCrd: CrdDefinition = {
  group: SIP_GROUP,
  kind: SIP_CLUSTER_KIND,
  plural: SIP_CLUSTER_PLURAL,
  singular: 'sipcluster',
  scope: 'Namespaced',
  categories: ['airship'],
  versions: [
    {
      name: SIP_VERSION,
      served: true,
      storage: true,
      schema: sipClusterSchema,
      statusSubresource: true,
      printerColumns: [
        { name: 'Ready', type: 'string', jsonPath: readyCondition('status') },
        { name: 'Reason', type: 'string', jsonPath: readyCondition('reason') },
        {
          name: 'ControlPlane',
          type: 'integer',
          jsonPath: '.status.nodes.ControlPlane.scheduled',
          description: 'ControlPlane hosts labelled for the cluster',
        },
        {
          name: 'Workers',
          type: 'integer',
          jsonPath: '.status.nodes.Worker.scheduled',
          description: 'Worker hosts labelled for the cluster',
        },
        { name: 'Message', type: 'string', jsonPath: readyCondition('message'), priority: 1 },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
};

/** Escapes a label key for a kubectl JSONPath (dots are path separators). */
const labelPath = (key: string) => `.metadata.labels.${key.replaceAll('.', '\\.')}`;

export const bareMetalHostCrd: CrdDefinition = {
  group: METAL3_GROUP,
  kind: BMH_KIND,
  plural: BMH_PLURAL,
  singular: 'baremetalhost',
  shortNames: ['bmh', 'bmhost'],
  scope: 'Namespaced',
  versions: [
    {
      name: METAL3_VERSION,
      served: true,
      storage: true,
      schema: bareMetalHostSchema,
      statusSubresource: true,
      printerColumns: [
        { name: 'State', type: 'string', jsonPath: '.status.provisioning.state' },
        { name: 'Online', type: 'string', jsonPath: '.spec.online' },
        { name: 'Cluster', type: 'string', jsonPath: labelPath(LABEL_CLUSTER_NAME) },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
};

/** CRDs in the chart's crds/ folder (always installed). */
export const crdDefinitions: CrdDefinition[] = [sipClusterCrd];
/** The BareMetalHost CRD, a guarded template in the chart (installBareMetalHostCRD). */
export const optionalCrdDefinitions: CrdDefinition[] = [bareMetalHostCrd];

/**
 * The only objects of SIPCluster that keep fields the schema does not declare, and why: a Dex
 * connector's configuration is Dex's own, passed through as is. Every other object refuses unknown
 * fields.
 */
export const FREE_FORM_OBJECTS: Readonly<Record<string, string>> = {
  'SIPCluster spec.services.auth[].connectors[].config': "Dex's connector configuration, passed to Dex as is",
};

/**
 * The objects of the chart's optional BareMetalHost CRD that keep undeclared fields, and why: it is a
 * subset of metal3's CRD, open where SIP does not read, so metal3's own manifests and controllers
 * apply to it unchanged (SIP reads only the fields declared around them).
 */
export const OPTIONAL_FREE_FORM_OBJECTS: Readonly<Record<string, string>> = {
  'BareMetalHost spec': "metal3's other spec fields (bootMode, image, rootDeviceHints, …), not read by SIP",
  'BareMetalHost spec.consumerRef': "metal3's ObjectReference to the consumer, not read by SIP",
  'BareMetalHost status': "metal3's status, written by metal3's controller, not read by SIP",
  'BareMetalHost status.provisioning': "metal3's provisioning details beside `state`, not read by SIP",
};
