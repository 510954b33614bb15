import { Kinds } from '@stackops/lib-common/client';
import { pausedChanged } from '@stackops/lib-common/pipeline';
import {
  type Controller,
  generationChanged,
  labelsChanged,
  type Manager,
  or,
} from '@stackops/lib-common/runtime';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import type { OperatorConfig } from '../config/operator-config.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../resources/labels.js';
import { DEFAULT_RETRY_DELAYS, type RetryDelays, sipClusterErrorPolicy } from './error-policy.js';
import { sipClusterReconciler } from './sipcluster-reconciler.js';
import { LOAD_BALANCER_TEMPLATES, SERVICE_KINDS } from './steps/deploy-services.js';
import { clustersForHost, secretRefsOfHosts, serviceSecretNames } from './watch-mappers.js';

/**
 * Registers the SIPCluster controller with a manager. Concurrency 1: SIPClusters are processed
 * one at a time across the whole operator, so two clusters never schedule from the same view of
 * the hosts at once. Reconciles are triggered by SIPCluster spec changes, by the objects of its
 * services, by BareMetalHosts (labels or spec) and by the Secrets the hosts and services use
 * (watched by name: only the Secrets it creates are cached whole).
 */
export function registerSipClusterController(
  manager: Manager,
  opts: OperatorConfig & Partial<RetryDelays>,
): Controller<SIPCluster> {
  const clusters = () => manager.cache.list<SIPCluster>(SIPClusterKind);
  let builder = manager
    .controller<SIPCluster>({
      for: SIPClusterKind,
      name: 'sipcluster',
      concurrency: 1,
      errorPolicy: sipClusterErrorPolicy({
        invalidInputRetryMs: opts.invalidInputRetryMs ?? DEFAULT_RETRY_DELAYS.invalidInputRetryMs,
        waitingRetryMs: opts.waitingRetryMs ?? DEFAULT_RETRY_DELAYS.waitingRetryMs,
      }),
    })
    .forPredicates(or(generationChanged, pausedChanged));
  // Only the Secrets it creates (managed-by label) are cached; those it reads are watched by name.
  for (const kind of SERVICE_KINDS)
    builder = builder.owns(
      kind,
      kind === Kinds.Secret ? { labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` } : {},
    );
  return (
    builder
      .watches(BareMetalHostKind, (bmh) => clustersForHost(bmh as BareMetalHost, clusters()), {
        predicates: [or(labelsChanged, generationChanged)],
      })
      // The site's HAProxy templates (ConfigMaps are cached whole: the services own some).
      .referencedBy(Kinds.ConfigMap, () => LOAD_BALANCER_TEMPLATES.map((t) => t.configMap))
      .watchesNamed(Kinds.Secret, (sip) => [
        ...serviceSecretNames(sip),
        ...secretRefsOfHosts(sip, manager.cache.list<BareMetalHost>(BareMetalHostKind)),
      ])
      .reconcile(sipClusterReconciler({ images: opts.images }))
  );
}
