#!/usr/bin/env node
import { KubeConfig } from '@kubernetes/client-node';
import { MARIADB_IMAGE_ENV } from '@stackops/lib-common/database';
import { createLogger } from '@stackops/lib-common/logging';
import { Manager, managerOptionsFromFlags, parseManagerOptions } from '@stackops/lib-common/runtime';
import { KEYSTONE_API_IMAGE_ENV } from './api/keystone-api.js';
import { registerKeystoneApiController } from './controllers/keystone-api-controller.js';
import { registerKeystoneEndpointController } from './controllers/keystone-endpoint-controller.js';
import { registerKeystoneServiceController } from './controllers/keystone-service-controller.js';
import { IdentityClientPool } from './identity/client-pool.js';
import { imageDefaultsFromEnv } from './resources/spec.js';

const OPERATOR_NAME = 'keystone-operator';

/** Set when the operator runs outside the cluster network (e.g. `make demo`), where Service names do not resolve. */
const KEYSTONE_AUTH_URL_OVERRIDE_ENV = 'KEYSTONE_AUTH_URL_OVERRIDE';

const USAGE = `Usage: keystone-operator [flags]

Runs OpenStack Keystone for each KeystoneAPI (keystone.openstack.org/v1beta1) and registers the
services and endpoints of KeystoneService and KeystoneEndpoint objects in it.

Flags (each also read from the environment variable in brackets):
  --watch-namespace=a,b                  namespaces to watch (default: all) [WATCH_NAMESPACE]
  --metrics-bind-address=host:port       /metrics (default 127.0.0.1:8080; 0 = off) [METRICS_BIND_ADDRESS]
  --health-probe-bind-address=host:port  /healthz and /readyz (default 127.0.0.1:8081) [HEALTH_PROBE_BIND_ADDRESS]
  --leader-elect                         elect a leader through a Lease (replicas > 1) [LEADER_ELECT]
  --leader-election-namespace=ns         namespace of the Lease [POD_NAMESPACE]
  --log-level=info                       trace, debug, info, warn, error [LOG_LEVEL]
  --kubeconfig=path                      default: in-cluster, else ~/.kube/config [KUBECONFIG]
  --graceful-shutdown-timeout=30s        [GRACEFUL_SHUTDOWN_TIMEOUT]

Environment:
  ${KEYSTONE_API_IMAGE_ENV}  image for KeystoneAPIs without containerImage
  ${MARIADB_IMAGE_ENV}        image with a MariaDB client, for the db-create Job
  ${KEYSTONE_AUTH_URL_OVERRIDE_ENV}  Keystone URL the operator itself calls, instead of the
                              KeystoneAPI's internal endpoint; for running it outside the cluster
`;

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const flags = parseManagerOptions(argv, process.env);
  const kubeConfig = new KubeConfig();
  if (flags.kubeconfig) kubeConfig.loadFromFile(flags.kubeconfig);
  else kubeConfig.loadFromDefault();
  const logger = createLogger({ name: OPERATOR_NAME, ...(flags.logLevel ? { level: flags.logLevel } : {}) });
  const manager = new Manager(managerOptionsFromFlags(flags, { name: OPERATOR_NAME, kubeConfig, logger }));
  registerKeystoneApiController(manager, imageDefaultsFromEnv(process.env));
  // One pool of admin clients (and tokens) for both registration controllers.
  const pool = new IdentityClientPool(undefined, process.env[KEYSTONE_AUTH_URL_OVERRIDE_ENV] || undefined);
  registerKeystoneServiceController(manager, { pool });
  registerKeystoneEndpointController(manager, { pool });
  manager.stopOnSignals();
  await manager.start();
  logger.info({ namespaces: flags.namespaces ?? 'all' }, 'keystone-operator started');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`keystone-operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
