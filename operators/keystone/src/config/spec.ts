import { DB_ROOT_PASSWORD_KEY, type KeystoneAPI, type KeystoneAPISpec } from '../api/keystone-api.js';
import type { KeystoneDefaults } from './defaults.js';

/** The spec with every default filled in (the API server defaults them too; this covers old objects). */
export interface ResolvedSpec extends KeystoneAPISpec {
  containerImage: string;
  databaseInstance: string;
  databaseAccount: string;
  memcachedInstance: string;
  /**
   * Not a spec field, never set by `resolveSpec`: the builders' input from `specForPods`, which
   * adds the mTLS client certificate Secret the memcached step found on the Memcached CR.
   */
  memcachedMtlsSecret?: string;
  region: string;
  adminProject: string;
  adminUser: string;
  replicas: number;
  enableSecureRBAC: boolean;
  trustFlushArgs: string;
  trustFlushSchedule: string;
  trustFlushSuspend: boolean;
  fernetRotationDays: number;
  fernetMaxActiveKeys: number;
  passwordSelectors: { admin: string; database: string };
  preserveJobs: boolean;
  apiTimeout: number;
  processNumber: number;
  externalKeystoneAPI: boolean;
  /** networkAttachments plus the README's misspelt networkAttachents, without duplicates. */
  networkAttachments: string[];
  nodeSelector: Record<string, string>;
}

/** `passwordSelectors.database`'s default: the one key of spec.secret that may be absent (the password is then generated). */
export const DEFAULT_DATABASE_KEY = 'KeystoneDatabasePassword';

/** The spec with the defaults filled in; an empty `containerImage` takes the operator's default image. */
export function resolveSpec(cr: KeystoneAPI, defaults: Pick<KeystoneDefaults, 'apiImage'>): ResolvedSpec {
  const s = cr.spec;
  return {
    ...s,
    containerImage: s.containerImage || defaults.apiImage,
    databaseInstance: s.databaseInstance || 'openstack',
    databaseAccount: s.databaseAccount || 'keystone',
    // Absent means upstream's default; an explicit '' means no cache (stackops' extension).
    memcachedInstance: s.memcachedInstance ?? 'memcached',
    region: s.region || 'regionOne',
    adminProject: s.adminProject || 'admin',
    adminUser: s.adminUser || 'admin',
    replicas: s.replicas ?? 1,
    enableSecureRBAC: s.enableSecureRBAC ?? true,
    trustFlushArgs: s.trustFlushArgs ?? '',
    trustFlushSchedule: s.trustFlushSchedule || '1 * * * *',
    trustFlushSuspend: s.trustFlushSuspend ?? false,
    fernetRotationDays: s.fernetRotationDays ?? 1,
    fernetMaxActiveKeys: s.fernetMaxActiveKeys ?? 5,
    passwordSelectors: {
      admin: s.passwordSelectors?.admin || 'AdminPassword',
      database: s.passwordSelectors?.database || DEFAULT_DATABASE_KEY,
    },
    preserveJobs: s.preserveJobs ?? false,
    apiTimeout: s.apiTimeout || 60,
    processNumber: s.httpdCustomization?.processNumber ?? 3,
    externalKeystoneAPI: s.externalKeystoneAPI ?? false,
    networkAttachments: [...new Set([...(s.networkAttachments ?? []), ...(s.networkAttachents ?? [])])],
    nodeSelector: s.nodeSelector ?? {},
  };
}

/** The Secret keys a KeystoneAPI reads from `spec.secret`. */
export const inputSecretKeys = (s: ResolvedSpec) => ({
  admin: s.passwordSelectors.admin,
  database: s.passwordSelectors.database,
  root: DB_ROOT_PASSWORD_KEY,
});

/** The SQL user name for `databaseAccount` (a Kubernetes-style name may use dashes; SQL gets underscores). */
export const databaseUser = (s: ResolvedSpec): string => s.databaseAccount.replaceAll('-', '_');

/** The RabbitMQ cluster notifications go to: `notificationsBus.cluster`, else the deprecated `rabbitMqClusterName`. */
export function notificationsCluster(spec: ResolvedSpec): string | undefined {
  return spec.notificationsBus?.cluster || spec.rabbitMqClusterName || undefined;
}
