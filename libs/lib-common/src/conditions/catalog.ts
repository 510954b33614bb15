import { describeError, shortValue } from '../client/errors.js';

/**
 * The one table of condition constants: statuses, severities, reasons, the standard condition
 * types and their message formats. Message strings follow upstream lib-common word for word
 * (including its typos and leading spaces) so users see the same texts; `%s` is the argument
 * placeholder, filled by `formatMessage`. Failure messages (API errors → text) are in `messages.ts`.
 */

export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** `None` is for True and Unknown conditions; False conditions carry Error, Warning or Info. */
export const Severity = { Error: 'Error', Warning: 'Warning', Info: 'Info', None: '' } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export const Reason = {
  /** The underlying object was requested and is not ready yet (Info). */
  Requested: 'Requested',
  NotRequested: 'NotRequested',
  CreationFailed: 'CreationFailed',
  /** Status True. */
  Ready: 'Ready',
  /** Status Unknown at the start of a reconcile. */
  Init: 'Init',
  /** Something failed and will be retried (Warning). */
  Error: 'Error',
  BackoffLimitExceeded: 'BackoffLimitExceeded',
  Deleting: 'Deleting',
  DeletionFailed: 'DeletionFailed',
  Deleted: 'Deleted',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Message formats of one condition type. `running`/`waiting` exist only where upstream has them. */
export interface ConditionMessages {
  readonly init: string;
  readonly ready: string;
  readonly running?: string;
  readonly waiting?: string;
  readonly error?: string;
  readonly notAllPods?: string;
}

/**
 * Standard condition types (the keys) and their messages. Types marked "stackops" have no message
 * set upstream; their texts follow the upstream pattern.
 */
export const ConditionCatalog = {
  Ready: { init: 'Setup started', ready: 'Setup complete' },
  InputReady: {
    init: 'Input data not checked',
    ready: 'Input data complete',
    waiting: 'Input data resources missing',
    error: 'Input data error occurred %s',
  },
  ServiceConfigReady: {
    init: 'Service config create not started',
    ready: 'Service config create completed',
    error: 'Service config create error occurred %s',
  },
  DBReady: {
    init: 'DB create not started',
    ready: 'DB create completed',
    running: 'DB create job still running',
    error: 'DB create job error occurred %s',
  },
  DBSyncReady: {
    init: 'DBsync not started',
    ready: 'DBsync completed',
    running: 'DBsync job still running',
    error: 'DBsync job error occurred %s',
  },
  CreateServiceReady: {
    init: 'Create service not started',
    ready: 'Create service completed',
    running: 'Create service in progress',
    error: 'Create service error occurred %s',
  },
  /** Legacy (replaced by CreateServiceReady); stackops texts. */
  ExposeServiceReady: {
    init: 'Exposing service not started',
    ready: 'Exposing service completed',
    running: 'Exposing service in progress',
    error: 'Exposing service error occurred %s',
  },
  BootstrapReady: {
    init: 'Bootstrap not started',
    ready: 'Bootstrap completed',
    running: 'Bootstrap in progress',
    error: 'Bootstrap error occurred %s',
  },
  DeploymentReady: {
    init: 'Deployment not started',
    ready: 'Deployment completed',
    running: 'Deployment in progress',
    error: 'Deployment error occurred %s',
  },
  KeystoneServiceReady: {
    init: 'Service registration not started',
    ready: 'Setup complete',
    error: 'Service registration error occurred %s',
  },
  KeystoneEndpointReady: {
    init: 'KeystoneEndpoint not created',
    ready: 'Setup complete',
    error: 'KeystoneEndpoint error occurred %s',
  },
  NetworkAttachmentsReady: {
    init: 'NetworkAttachments not started',
    ready: 'NetworkAttachments completed',
    waiting: 'NetworkAttachment resources missing: %s',
    error: 'NetworkAttachments error occurred %s',
    notAllPods:
      'NetworkAttachments error occurred not all pods have interfaces with ips as configured in NetworkAttachments: %s',
  },
  CronJobReady: {
    init: 'CronJob not started',
    ready: 'CronJob completed',
    error: 'CronJob error occurred %s',
  },
  /** stackops texts. */
  JobReady: {
    init: 'Job not started',
    ready: 'Job completed',
    running: 'Job still running',
    error: 'Job error occurred %s',
  },
  MemcachedReady: {
    init: ' Memcached create not started',
    ready: ' Memcached instance has been provisioned',
    waiting: ' Memcached instance has not been provisioned',
    error: ' Memcached error occurred %s',
  },
  RabbitMqTransportURLReady: {
    init: 'RabbitMqTransportURL not started',
    ready: 'RabbitMqTransportURL successfully created',
    running: 'RabbitMqTransportURL creation in progress',
    error: 'RabbitMqTransportURL error occured %s',
  },
  ServiceAccountReady: {
    init: 'ServiceAccount not created',
    ready: 'ServiceAccount created',
    running: 'ServiceAccount creation in progress',
    error: 'ServiceAccount error occurred %s',
  },
  RoleReady: {
    init: 'Role not created',
    ready: 'Role created',
    running: 'Role creation in progress',
    error: 'Role error occurred %s',
  },
  RoleBindingReady: {
    init: 'RoleBinding not created',
    ready: 'RoleBinding created',
    running: 'RoleBinding creation in progress',
    error: 'RoleBinding error occurred %s',
  },
  TLSInputReady: {
    init: 'Input data not checked',
    ready: 'Input data complete',
    waiting: 'TLSInput is missing: %s',
    error: 'TLSInput error occured in TLS sources %s',
  },
  TopologyReady: {
    init: 'Topology config create not started',
    ready: 'Topology config create completed',
    error: 'Topology config create error occurred %s',
  },
  /** stackops texts. */
  PDBReady: {
    init: 'PodDisruptionBudget not started',
    ready: 'PodDisruptionBudget completed',
    error: 'PodDisruptionBudget error occurred %s',
  },
  MariaDBAccountReady: {
    init: 'MariaDBAccount not started',
    ready: 'MariaDBAccount creation complete',
    waiting: 'MariaDBAccount is not present: %s',
    error: 'MariaDBAccount error occurred %s',
  },
} as const satisfies Record<string, ConditionMessages>;

export type StandardConditionType = keyof typeof ConditionCatalog;

/** `ConditionType.DBSyncReady === 'DBSyncReady'`: the standard types as named constants. */
export const ConditionType = Object.freeze(
  Object.fromEntries(Object.keys(ConditionCatalog).map((k) => [k, k])),
) as { readonly [K in StandardConditionType]: K };

/** The messages of a type, or undefined for a type outside the catalog (operator-specific ones). */
export function messagesOf(type: string): ConditionMessages | undefined {
  return Object.hasOwn(ConditionCatalog, type) ? ConditionCatalog[type as StandardConditionType] : undefined;
}

/**
 * printf-style `%s` substitution, in order. Arrays print like Go's `%s` of a slice (`[a b]`) so the
 * upstream message texts come out the same; Errors print their message; a missing argument prints
 * as nothing.
 */
export function formatMessage(format: string, ...args: readonly unknown[]): string {
  let i = 0;
  return format.replace(/%s/g, () => (i < args.length ? argText(args[i++]) : ''));
}

/** Longest argument a message quotes whole (a 300-character spec value must not fill the MESSAGE column). */
const MAX_ARG_LENGTH = 100;

function argText(arg: unknown): string {
  if (Array.isArray(arg)) return `[${arg.map(argText).join(' ')}]`;
  // An API error without its request line (verb, URL, query), naming the object and the fields refused.
  if (arg instanceof Error) return describeError(arg);
  return shortValue(String(arg), MAX_ARG_LENGTH);
}
