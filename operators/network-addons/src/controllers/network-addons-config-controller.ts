import { randomBytes } from 'node:crypto';
import { Kinds } from '@stackops/lib-common/client';
import { pausedChanged } from '@stackops/lib-common/pipeline';
import {
  type Controller,
  generationChanged,
  labelsChanged,
  type Manager,
  or,
} from '@stackops/lib-common/runtime';
import { OPERATOR_CONFIG_NAME } from '../api/constants.js';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../api/kinds.js';
import type { OperatorEnv } from '../config/operator-env.js';
import { followTlsProfile, registerCnaoMetrics } from '../monitoring.js';
import type { RandomBytes } from '../network/kubemacpool-range.js';
import { CERT_MANAGER_KINDS, RENDERED_KINDS } from '../resources/kinds.js';
import { MANAGED_SELECTOR } from '../resources/labels.js';
import { podStateChanged } from '../status/pod-failures.js';
import { networkAddonsConfigReconciler } from './network-addons-config-reconciler.js';

export interface NetworkAddonsControllerOptions {
  env: OperatorEnv;
  random?: RandomBytes;
  now?: () => Date;
}

/**
 * Registers the NetworkAddonsConfig controller. It watches every kind it renders, cached only where
 * labelled `app.kubernetes.io/managed-by=cnao-operator` (so the operator never lists every
 * ConfigMap or ClusterRole of the cluster); a change to any such object brings the singleton back,
 * and so does a change in a component pod's containers (ready, waiting reason). No periodic pass:
 * what it reads is all watched (ADR 0055), and lib-common's 10 h safety net stays. Spec
 * and label changes of the CR trigger it, and setting or removing `openstack.org/paused`; its own
 * status writes do not.
 */
export function registerNetworkAddonsConfigController(
  manager: Manager,
  opts: NetworkAddonsControllerOptions,
): Controller<NetworkAddonsConfig> {
  // Only what the operator labelled is cached, for every kind it owns or watches.
  const managedOnly = { labelSelector: MANAGED_SELECTOR };
  const reconcile = networkAddonsConfigReconciler(
    { env: opts.env, random: opts.random ?? ((n) => randomBytes(n)) },
    opts.now,
  );
  let builder = manager
    .controller<NetworkAddonsConfig>({ for: NetworkAddonsConfigKind, name: 'networkaddonsconfig' })
    .forPredicates(or(generationChanged, labelsChanged, pausedChanged));
  // Every object it renders brings the singleton back, owned or not: CRDs and `rejectOwner` objects
  // carry no owner reference, and a change to one is set back at once instead of by a timer.
  const toSingleton = () => ({ name: OPERATOR_CONFIG_NAME });
  for (const kind of RENDERED_KINDS) builder = builder.watches(kind, toSingleton, managedOnly);
  // cert-manager's kinds from the moment its CRDs serve them, installed before this operator or
  // after: a CRD that comes or goes brings the singleton back to render with it or without it.
  for (const kind of CERT_MANAGER_KINDS)
    builder = builder.watches(kind, toSingleton, { ...managedOnly, optional: true });
  // The components' pods (labelled like every rendered object): a container that starts failing or
  // recovers changes Degraded, while the DaemonSet's or Deployment's own status stays the same.
  builder = builder.watches(Kinds.Pod, toSingleton, {
    ...managedOnly,
    predicates: [podStateChanged],
  });
  registerCnaoMetrics(manager);
  return builder.reconcile(async (cr, ctx) => {
    // Upstream stores the profile as it reads the CR, before anything else; so here, for every pass
    // of the singleton (a deleted one leaves the last profile in force, as upstream's does).
    if (cr.metadata.name === OPERATOR_CONFIG_NAME) followTlsProfile(manager, cr);
    return reconcile(cr, ctx);
  });
}
