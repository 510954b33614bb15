import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@stackops/lib-common/logging';
import { Manager, managerOptionsFromFlags, parseManagerOptions } from '@stackops/lib-common/runtime';
import { OPERATOR_NAME, registerSipClusterController } from './operator.js';

const USAGE = `Usage: sip-operator [flags]

Reconciles SIPClusters (airship.airshipit.org/v1): schedules BareMetalHosts for each tenant
cluster, deploys its load balancers, jump host and OIDC provider, and labels the hosts.

Flags (each also read from the environment variable in brackets):
  --metrics-bind-address=host:port       /metrics (default 127.0.0.1:8080; 0 = off) [METRICS_BIND_ADDRESS]
  --health-probe-bind-address=host:port  /healthz and /readyz (default 127.0.0.1:8081) [HEALTH_PROBE_BIND_ADDRESS]
  --leader-elect                         elect a leader through a Lease (replicas > 1) [LEADER_ELECT]
  --leader-election-namespace=ns         namespace of the Lease [POD_NAMESPACE]
  --watch-namespace=a,b                  watch only these namespaces (SIPClusters, BareMetalHosts,
                                         Secrets); default all [WATCH_NAMESPACE]
  --log-level=info                       trace, debug, info, warn, error [LOG_LEVEL]
  --kubeconfig=path                      default: in-cluster, else ~/.kube/config [KUBECONFIG]
  --graceful-shutdown-timeout=30s        [GRACEFUL_SHUTDOWN_TIMEOUT]

Default service images: RELATED_IMAGE_HAPROXY, RELATED_IMAGE_JUMP_HOST, RELATED_IMAGE_DEX.
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
  registerSipClusterController(manager);
  manager.stopOnSignals();
  await manager.start();
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`sip-operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
