import { randomBytes } from 'node:crypto';
import { isNotFound, Kinds, type KubeClient } from '@stackops/lib-common/client';
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
import { CERT_MANAGER_KINDS, CertificateKind, RENDERED_KINDS } from '../resources/kinds.js';
import { MANAGED_SELECTOR } from '../resources/labels.js';
import { podStateChanged } from '../status/pod-failures.js';
import { networkAddonsConfigReconciler } from './network-addons-config-reconciler.js';

export interface NetworkAddonsControllerOptions {
  env: OperatorEnv;
  random?: RandomBytes;
  now?: () => Date;
}

/** Whether cert-manager's API is served (then the ipam controller gets a Certificate and an Issuer). */
async function certManagerServed(client: KubeClient): Promise<boolean> {
  try {
    await client.list(CertificateKind, { limit: 1 });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
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
export async function registerNetworkAddonsConfigController(
  manager: Manager,
  opts: NetworkAddonsControllerOptions,
): Promise<Controller<NetworkAddonsConfig>> {
  // Only what the operator labelled is cached, for every kind it owns or watches.
  const managedOnly = { labelSelector: MANAGED_SELECTOR };
  // The informers the controller will own whatever cert-manager's answer start first, with the
  // options it gives them: their watch-lists go out during that round trip instead of after it.
  manager.cache.informer(NetworkAddonsConfigKind);
  for (const kind of [...RENDERED_KINDS, Kinds.Pod]) manager.cache.informer(kind, managedOnly);
  const certManagerAvailable = await certManagerServed(manager.client);
  const kinds = [...RENDERED_KINDS, ...(certManagerAvailable ? CERT_MANAGER_KINDS : [])];
  const reconcile = networkAddonsConfigReconciler(
    {
      env: opts.env,
      certManagerAvailable,
      kinds,
      random: opts.random ?? ((n) => randomBytes(n)),
    },
    opts.now,
  );
  let builder = manager
    .controller<NetworkAddonsConfig>({ for: NetworkAddonsConfigKind, name: 'networkaddonsconfig' })
    .forPredicates(or(generationChanged, labelsChanged, pausedChanged));
  // Every object it renders brings the singleton back, owned or not: CRDs and `rejectOwner` objects
  // carry no owner reference, and a change to one is set back at once instead of by a timer.
  const toSingleton = () => ({ name: OPERATOR_CONFIG_NAME });
  for (const kind of kinds) builder = builder.watches(kind, toSingleton, managedOnly);
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
