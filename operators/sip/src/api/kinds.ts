import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds, type BareMetalHost as Metal3BareMetalHost } from '@stackops/lib-common/external';
import { SIP_CLUSTER_KIND, SIP_CLUSTER_PLURAL, SIP_GROUP, SIP_VERSION } from './constants.js';
import type { SIPClusterSpec, SIPClusterStatus } from './sipcluster.js';

export const SIPClusterKind: KindRef = {
  group: SIP_GROUP,
  version: SIP_VERSION,
  kind: SIP_CLUSTER_KIND,
  plural: SIP_CLUSTER_PLURAL,
  namespaced: true,
};

export const BareMetalHostKind: KindRef = ExternalKinds.BareMetalHost;

/** A SIPCluster as read from the API server (schema defaults applied). */
export interface SIPCluster extends KubeObject {
  spec: SIPClusterSpec;
  status?: SIPClusterStatus;
}

/** A metal3 BareMetalHost; its type is generated from the CRD YAML in tools/crd-types (ADR 0013). */
export type BareMetalHost = Metal3BareMetalHost & KubeObject;
