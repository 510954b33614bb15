import { readFileSync } from 'node:fs';
import type { OperatorMainOptions } from '@stackops/lib-common/runtime';
import { IMAGE_ENV_VARS } from './config/images.js';
import { cnaoLogLevel, FIELD_MANAGER, OPERATOR_NAME, readOperatorEnv } from './config/operator-env.js';
import { registerNetworkAddonsConfigController } from './controllers/network-addons-config-controller.js';

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

/** What the network-addons operator is and registers: its `main` and the combined process (`@stackops/operators`) run it. */
export const networkAddonsOperator: OperatorMainOptions<ReturnType<typeof readOperatorEnv>> = {
  name: OPERATOR_NAME,
  summary: `Deploys the network add-ons a NetworkAddonsConfig named "cluster" asks for
(networkaddonsoperator.network.kubevirt.io v1/v1alpha1): Multus, Linux bridge, KubeMacPool,
NMState, OVS, macvtap, KubeSecondaryDNS, kubevirt-ipam-controller.`,
  // Its objects are cluster-wide or in OPERATOR_NAMESPACE, so --help does not offer --watch-namespace.
  flags: (common) => common.filter((f) => f.env !== 'WATCH_NAMESPACE'),
  epilog: `Environment:
  OPERATOR_NAMESPACE   (required) holds the applied-configuration ConfigMap
  OPERAND_NAMESPACE    namespace of the components (default OPERATOR_NAMESPACE)
  OPERATOR_VERSION     reported in status and labels (default the package version)
  CNAO_LOG_LEVEL       upstream's log level, wins over --log-level: -1 debug, 0 info, 1 warn, 2 error
  Component images: ${Object.values(IMAGE_ENV_VARS).join(', ')}
`,
  fieldManager: FIELD_MANAGER,
  logLevel: cnaoLogLevel,
  readConfig: (env) => readOperatorEnv(env, packageVersion()),
  register: (manager, { config: env }) => {
    registerNetworkAddonsConfigController(manager, { env });
    return {
      startedFields: {
        operatorNamespace: env.operatorNamespace,
        operandNamespace: env.operandNamespace,
        version: env.operatorVersion,
      },
    };
  },
};
