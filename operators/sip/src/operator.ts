import { Kinds, type KubeObject } from '@stackops/lib-common/resources';
import {
  type Controller,
  generationChanged,
  labelsChanged,
  type Manager,
  or,
} from '@stackops/lib-common/runtime';
import { DEFAULT_IMAGES } from './api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster, SIPClusterKind } from './api/kinds.js';
import { clustersForHost, clustersForSecret } from './controllers/mappers.js';
import {
  SIPClusterReconciler,
  type SIPClusterReconcilerOptions,
} from './controllers/sipcluster-reconciler.js';
import { SERVICE_KINDS } from './controllers/steps/deploy-services.js';
import type { ServiceImages } from './services/context.js';

export const OPERATOR_NAME = 'sip-operator';

/** Default service images: the RELATED_IMAGE_* variables, else upstream's images. */
export function imagesFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServiceImages {
  const pick = (d: { env: string; image: string }) => env[d.env] || d.image;
  return {
    loadBalancer: pick(DEFAULT_IMAGES.loadBalancer),
    jumpHost: pick(DEFAULT_IMAGES.jumpHost),
    auth: pick(DEFAULT_IMAGES.auth),
  };
}

/**
 * Registers the SIPCluster controller with a manager. Concurrency 1: SIPClusters are processed
 * one at a time across the whole operator, as SIP's design requires (two clusters never schedule
 * from the same view of the hosts at once). Reconciles are triggered by SIPCluster spec changes,
 * by the objects of its services, by BareMetalHosts (labels or spec) and by the Secrets the hosts
 * and services use.
 */
export function registerSipClusterController(
  manager: Manager,
  opts: Partial<SIPClusterReconcilerOptions> = {},
): Controller<SIPCluster> {
  const reconciler = new SIPClusterReconciler({ images: imagesFromEnv(), ...opts });
  const clusters = () => manager.cache.list<SIPCluster>(SIPClusterKind);
  let builder = manager
    .controller<SIPCluster>({ for: SIPClusterKind, name: 'sipcluster', concurrency: 1 })
    .withPredicates(generationChanged);
  for (const kind of SERVICE_KINDS) builder = builder.owns(kind);
  return builder
    .watches(BareMetalHostKind, (bmh) => clustersForHost(bmh as BareMetalHost, clusters()), {
      predicates: [or(labelsChanged, generationChanged)],
    })
    .watches(Kinds.Secret, (secret: KubeObject) =>
      clustersForSecret(secret, clusters(), manager.cache.list<BareMetalHost>(BareMetalHostKind)),
    )
    .reconcile(async (sip, ctx) => {
      const { requeueAfterMs } = await reconciler.reconcile(ctx, sip);
      return requeueAfterMs ? { requeueAfter: requeueAfterMs } : undefined;
    });
}
