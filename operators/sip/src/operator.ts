import type { OperatorMainOptions } from '@stackops/lib-common/runtime';
import { DEFAULT_IMAGES } from './config/images.js';
import { OPERATOR_NAME, readOperatorConfig } from './config/operator-config.js';
import { registerSipClusterController } from './controllers/sipcluster-controller.js';

/** What the sip operator is and registers: its `main` and the combined process (`@stackops/operators`) run it. */
export const sipOperator: OperatorMainOptions<ReturnType<typeof readOperatorConfig>> = {
  name: OPERATOR_NAME,
  summary: `Reconciles SIPClusters (airship.airshipit.org/v1): schedules BareMetalHosts for each tenant
cluster, deploys its load balancers, jump host and OIDC provider, and labels the hosts.`,
  // --watch-namespace also scopes the BareMetalHosts and Secrets; listed after the leader-election flags.
  flags: (common) => {
    const others = common.filter((f) => f.env !== 'WATCH_NAMESPACE');
    const at = others.findIndex((f) => f.env === 'POD_NAMESPACE') + 1;
    const watch = {
      flag: '--watch-namespace=a,b',
      help: ['watch only these namespaces (SIPClusters, BareMetalHosts,', 'Secrets); default all'],
      env: 'WATCH_NAMESPACE',
    };
    return [...others.slice(0, at), watch, ...others.slice(at)];
  },
  epilog: `Default service images: ${Object.values(DEFAULT_IMAGES)
    .map((d) => d.env)
    .join(', ')}.\n`,
  readConfig: readOperatorConfig,
  register: (manager, { config }) => {
    registerSipClusterController(manager, config);
  },
};
