import type { SecretObject } from '@stackops/lib-common/objects';
import type { PodPlacement } from '@stackops/lib-common/openstack';
import type { Pass } from '@stackops/lib-common/pipeline';
import type { PlacementAPIStatus } from '../api/index.js';
import type { PlacementAPI } from '../api/kinds.js';
import type { PlacementDefaults } from '../config/defaults.js';

/** The status a PlacementAPI pass builds (its hash map always present). */
export type PlacementApiStatus = PlacementAPIStatus & { hash: Record<string, string> };

/** What every step of a PlacementAPI reconcile sees and fills in, besides lib-common's pass. */
export interface PlacementApiPass extends Pass<PlacementAPI, PlacementApiStatus> {
  readonly defaults: PlacementDefaults;
  /** Name → hash of every input the pods depend on (upstream `configMapVars`). */
  readonly inputs: Record<string, string>;
  /** The input Secret `spec.secret`, once checked. */
  inputSecret?: SecretObject;
  /** Passwords of the service user and the database account (never logged). */
  passwords?: { service: string; database: string };
  /** Where the database account's password lives: `spec.secret` or the generated account Secret. */
  databaseAccount?: { secret: string; key: string };
  /**
   * Set by the database step in mariadb-operator mode: the MariaDBAccount's user (its password is
   * `passwords.database`) and whether the database offers TLS. Unset in Job mode.
   */
  databaseConnection?: { user: string; tlsSupport: boolean };
  /** Hash of the account and root passwords: a change re-runs the db-create Job (ALTER USER). */
  dbSecretHash?: string;
  /** The combined input hash, once computed: the pods' CONFIG_HASH. */
  configHash?: string;
  /** Annotations for every placement pod (multus networks). */
  podAnnotations: Record<string, string>;
  /** NetworkAttachmentDefinition names requested by the spec. */
  networkAttachments: string[];
  /** From the Topology `spec.topologyRef` names (`ensureTopology`): applied to the Deployment and the db-sync Job. */
  topology?: PodPlacement | undefined;
}

/** How long to wait before looking again at something that is not there yet and has no watch. */
export const RECHECK_AFTER_MS = 10_000;

/** The image for the API and its jobs. */
export const apiImage = (ctx: PlacementApiPass): string =>
  ctx.cr.spec.containerImage || ctx.defaults.apiImage;
