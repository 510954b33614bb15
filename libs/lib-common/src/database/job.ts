import type { KubeObject } from '../client/types.js';
import { DB_ROOT_PASSWORD_KEY, DEFAULT_DB_PORT, databaseHostname } from './names.js';
import { type DatabaseGrant, dbCreateScript } from './sql.js';

/** Image with a MariaDB client; operators override it from `RELATED_IMAGE_MARIADB_IMAGE_URL_DEFAULT`. */
export const DEFAULT_MARIADB_CLIENT_IMAGE =
  'quay.io/podified-antelope-centos9/openstack-mariadb:current-podified';
export const MARIADB_IMAGE_ENV = 'RELATED_IMAGE_MARIADB_IMAGE_URL_DEFAULT';

export interface DbCreateJobInput {
  name: string;
  namespace: string;
  grant: DatabaseGrant;
  /** The MariaDB Service (the CR's `databaseInstance`). */
  instance: string;
  port?: number;
  /** Secret holding the account password (key `passwordKey`). */
  secret: string;
  passwordKey: string;
  /** Secret holding the root password; default `secret` (install_yamls' osp-secret has both). */
  rootSecret?: string;
  rootPasswordKey?: string;
  /**
   * A hash of the two password values. It is part of the pod spec, so a changed password changes
   * the Job's hash and the Job runs again (ALTER USER), while the values stay out of the spec.
   */
  secretHash: string;
  image?: string;
  /** Labels of the Job object only. */
  labels?: Record<string, string>;
  /**
   * Labels of its pod; none by default, as upstream's Job templates: a service label there would
   * make the Job's pod match the API pods' selector (Services, PodDisruptionBudgets).
   */
  podLabels?: Record<string, string>;
  podAnnotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  /** Seconds to keep a finished Job; undefined keeps it (upstream `preserveJobs`). */
  ttlSecondsAfterFinished?: number;
}

const secretEnv = (name: string, secret: string, key: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

/**
 * The `<name>-db-create` Job: runs the idempotent SQL of `dbCreateScript` against the MariaDB
 * Service with the root account. Run it through the hash-gated Job runner (hash = pod spec).
 */
export function buildDbCreateJob(input: DbCreateJobInput): KubeObject {
  const container = {
    name: input.name,
    image: input.image ?? DEFAULT_MARIADB_CLIENT_IMAGE,
    imagePullPolicy: 'IfNotPresent',
    command: ['/bin/bash', '-c', dbCreateScript(input.grant)],
    env: [
      { name: 'DB_HOST', value: databaseHostname(input.instance, input.namespace) },
      { name: 'DB_PORT', value: String(input.port ?? DEFAULT_DB_PORT) },
      { name: 'DB_SECRET_HASH', value: input.secretHash },
      secretEnv(
        'DB_ROOT_PASSWORD',
        input.rootSecret ?? input.secret,
        input.rootPasswordKey ?? DB_ROOT_PASSWORD_KEY,
      ),
      secretEnv('DB_PASSWORD', input.secret, input.passwordKey),
    ],
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    },
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      ...(input.labels ? { labels: input.labels } : {}),
    },
    spec: {
      backoffLimit: 6,
      ...(input.ttlSecondsAfterFinished !== undefined
        ? { ttlSecondsAfterFinished: input.ttlSecondsAfterFinished }
        : {}),
      template: {
        metadata: {
          ...(input.podLabels ? { labels: input.podLabels } : {}),
          ...(input.podAnnotations ? { annotations: input.podAnnotations } : {}),
        },
        spec: {
          restartPolicy: 'OnFailure',
          ...(input.serviceAccountName ? { serviceAccountName: input.serviceAccountName } : {}),
          ...(input.nodeSelector && Object.keys(input.nodeSelector).length > 0
            ? { nodeSelector: input.nodeSelector }
            : {}),
          containers: [container],
        },
      },
    },
  };
}
