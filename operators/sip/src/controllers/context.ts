import type { KubeObject } from '@stackops/lib-common/client';
import type { Pass } from '@stackops/lib-common/pipeline';
import type { ReconcileError } from '@stackops/lib-common/runtime';
import type { SIPCluster } from '../api/kinds.js';
import type { SIPClusterStatus } from '../api/sipcluster.js';
import type { ServiceImages } from '../config/images.js';
import type { HostData } from '../hostdata/host-data.js';
import type { Host, RoleSchedule } from '../scheduling/schedule.js';

/** The outcome of gathering: every role complete, with what was read from each host. */
interface GatheredHosts {
  roles: RoleSchedule[];
  /** Hosts the cluster holds and no longer needs. */
  released: Host[];
  /** Each role's hosts with their data, by name. */
  hostsByRole: Map<string, HostData[]>;
}

/** What `deployServices` leaves in the pass. */
interface DeployedServices {
  /** Service instance names (their Deployments), in spec order. */
  instances: string[];
  /** Their Deployments as last read or written (status included), in the same order. */
  deployments: KubeObject[];
}

/**
 * What the steps of one SIPCluster pass share: lib-common's pass (the object, client, cache, log,
 * conditions, status being built, Events), the service images, and what the earlier steps found.
 */
export interface SIPClusterPass extends Pass<SIPCluster, SIPClusterStatus> {
  readonly images: ServiceImages;
  /** Every role's hosts and their data (`gatherHosts`). */
  gathered?: GatheredHosts;
  /** The services that were deployed (`deployServices`). */
  deployed?: DeployedServices;
  /** The failure the pass ended on (recorded by the reconciler's `failed` hook). */
  failure?: ReconcileError;
}

/** What an earlier step left in the pass; an error naming that step when it did not run. */
export function fromStep<T>(value: T | undefined, step: string): T {
  if (value === undefined) throw new Error(`${step} must run before this step`);
  return value;
}
