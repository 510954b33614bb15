import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@stackops/lib-common/logging';
import { Manager, managerOptionsFromFlags, parseManagerOptions } from '@stackops/lib-common/runtime';
import { IMAGE_ENV_VARS } from './config/images.js';
import { readOperatorEnv } from './config/operator-env.js';
import { FIELD_MANAGER, NetworkAddonsOperator, OPERATOR_NAME } from './operator.js';

const USAGE = `Usage: network-addons-operator [flags]

Deploys the network add-ons a NetworkAddonsConfig named "cluster" asks for
(networkaddonsoperator.network.kubevirt.io v1/v1alpha1): Multus, Linux bridge, KubeMacPool,
NMState, OVS, macvtap, KubeSecondaryDNS, kubevirt-ipam-controller.

Flags (each also read from the environment variable in brackets):
  --metrics-bind-address=host:port       /metrics (default 127.0.0.1:8080; 0 = off) [METRICS_BIND_ADDRESS]
  --health-probe-bind-address=host:port  /healthz and /readyz (default 127.0.0.1:8081) [HEALTH_PROBE_BIND_ADDRESS]
  --leader-elect                         elect a leader through a Lease (replicas > 1) [LEADER_ELECT]
  --leader-election-namespace=ns         namespace of the Lease [POD_NAMESPACE]
  --log-level=info                       trace, debug, info, warn, error [LOG_LEVEL]
  --kubeconfig=path                      default: in-cluster, else ~/.kube/config [KUBECONFIG]
  --graceful-shutdown-timeout=30s        [GRACEFUL_SHUTDOWN_TIMEOUT]

Environment:
  OPERATOR_NAMESPACE   (required) holds the applied-configuration ConfigMap
  OPERAND_NAMESPACE    namespace of the components (default OPERATOR_NAMESPACE)
  OPERATOR_VERSION     reported in status and labels (default the package version)
  Component images: ${Object.values(IMAGE_ENV_VARS).join(', ')}
`;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const flags = parseManagerOptions(argv, process.env);
  const env = readOperatorEnv(process.env, packageVersion());
  const kubeConfig = new KubeConfig();
  if (flags.kubeconfig) kubeConfig.loadFromFile(flags.kubeconfig);
  else kubeConfig.loadFromDefault();
  const logger = createLogger({ name: OPERATOR_NAME, ...(flags.logLevel ? { level: flags.logLevel } : {}) });
  const manager = new Manager(
    managerOptionsFromFlags(flags, { name: OPERATOR_NAME, kubeConfig, logger, fieldManager: FIELD_MANAGER }),
  );
  const operator = await NetworkAddonsOperator.create(manager, { env });
  manager.stopOnSignals();
  await operator.start();
  logger.info(
    {
      operatorNamespace: env.operatorNamespace,
      operandNamespace: env.operandNamespace,
      version: env.operatorVersion,
    },
    'network-addons-operator started',
  );
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`network-addons-operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
