import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import type { BareMetalHostSpec, BareMetalHostStatus } from './baremetalhost.js';
import {
  BMH_KIND,
  BMH_PLURAL,
  METAL3_GROUP,
  METAL3_VERSION,
  SIP_CLUSTER_KIND,
  SIP_CLUSTER_PLURAL,
  SIP_GROUP,
  SIP_VERSION,
} from './constants.js';
import type { SIPClusterSpec, SIPClusterStatus } from './sipcluster.js';

export const SIPClusterKind: KindRef = {
  group: SIP_GROUP,
  version: SIP_VERSION,
  kind: SIP_CLUSTER_KIND,
  plural: SIP_CLUSTER_PLURAL,
  namespaced: true,
};

export const BareMetalHostKind: KindRef = {
  group: METAL3_GROUP,
  version: METAL3_VERSION,
  kind: BMH_KIND,
  plural: BMH_PLURAL,
  namespaced: true,
};

/** A SIPCluster as read from the API server (schema defaults applied). */
export interface SIPCluster extends KubeObject {
  spec: SIPClusterSpec;
  status?: SIPClusterStatus;
}

export interface BareMetalHost extends KubeObject {
  spec?: BareMetalHostSpec;
  status?: BareMetalHostStatus;
}
