import { Conditions, ConditionType, Reason, unknownCondition } from '@stackops/lib-common/conditions';
import { ensureFinalizer, removeFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneConditionTypes, KeystoneMessages } from '../../api/conditions.js';
import { endpointFinalizerOnParents, KeystoneFinalizers } from '../../api/finalizers.js';
import { KeystoneKinds } from '../../api/group.js';
import type { KeystoneEndpoint, KeystoneEndpointStatus } from '../../api/keystone-endpoint.js';
import type { KeystoneService } from '../../api/keystone-service.js';
import {
  deleteCatalogEndpoints,
  type EndpointsSpec,
  reconcileCatalogEndpoints,
} from '../../registration/endpoints.js';
import { markFailed } from '../dependants/conditions.js';
import {
  type DependantDefinition,
  type DependantOutcome,
  type DependantPass,
  DependantReconciler,
  type DependantReconcilerOptions,
  ignoreNotFound,
} from '../dependants/reconcile.js';

/** Upstream: 5 s while the KeystoneService is missing, 10 s while it is not ready. */
export const SERVICE_MISSING_RECHECK_MS = 5_000;
export const SERVICE_NOT_READY_RECHECK_MS = 10_000;

const T = KeystoneConditionTypes;
const M = KeystoneMessages;

type Status = KeystoneEndpointStatus & { endpointIDs: Record<string, string> };
type Pass = DependantPass<KeystoneEndpoint, Status>;

const isReady = (conds: { type: string; status: string }[] | undefined) =>
  conds?.some((c) => c.type === ConditionType.Ready && c.status === 'True') ?? false;

/** Upstream's message: `[internal:http://… public:http://…]`, sorted. */
export function endpointsSummary(endpoints: readonly { interface: string; url: string }[]): string {
  return `[${endpoints
    .map((e) => `${e.interface}:${e.url}`)
    .sort()
    .join(' ')}]`;
}

function endpointsSpec(pass: Pass): EndpointsSpec {
  return {
    serviceId: pass.status.serviceID ?? '',
    serviceName: pass.cr.spec.serviceName,
    region: pass.region ?? '',
    desired: pass.cr.spec.endpoints,
    recorded: pass.status.endpointIDs,
  };
}

/**
 * KeystoneEndpoint: one endpoint per interface in the KeystoneAPI's region for the
 * service of the KeystoneService named by `spec.serviceName`; holds
 * `openstack.org/keystoneendpoint-<name>` on that KeystoneService and on the KeystoneAPI while its
 * endpoints exist, and deletes them before releasing those finalizers.
 */
export function keystoneEndpointDefinition(
  opts: DependantReconcilerOptions,
): DependantDefinition<KeystoneEndpoint, Status> {
  const parentFinalizer = (pass: Pass) => endpointFinalizerOnParents(pass.cr.metadata.name ?? '');
  const serviceOf = (pass: Pass) =>
    opts.cache.get<KeystoneService>(KeystoneKinds.KeystoneService, {
      namespace: pass.cr.metadata.namespace ?? '',
      name: pass.cr.spec.serviceName,
    });
  return {
    kind: KeystoneKinds.KeystoneEndpoint,
    finalizer: KeystoneFinalizers.KeystoneEndpoint,
    conditions: [
      unknownCondition(T.KeystoneAPIReady, Reason.Init, M.KeystoneAPIReadyInit),
      unknownCondition(T.AdminServiceClientReady, Reason.Init, M.AdminServiceClientReadyInit),
      unknownCondition(ConditionType.KeystoneServiceReady, Reason.Init, ''),
      unknownCondition(T.KeystoneServiceOSEndpointsReady, Reason.Init, M.KeystoneServiceOSEndpointsReadyInit),
    ],
    initialStatus: (cr) => ({
      ...cr.status,
      endpointIDs: { ...cr.status?.endpointIDs },
      endpoints: [...(cr.status?.endpoints ?? [])],
      observedGeneration: cr.metadata.generation ?? 0,
    }),
    registered: (status) => Object.keys(status.endpointIDs).length > 0,
    async register(pass, api): Promise<DependantOutcome> {
      const service = serviceOf(pass);
      if (!service) return { requeueAfterMs: SERVICE_MISSING_RECHECK_MS };
      const mirrored = Conditions.from(service.status?.conditions).mirror(ConditionType.KeystoneServiceReady);
      if (mirrored) pass.conditions.set(mirrored);
      // A KeystoneService being deleted is taking its catalog service (and endpoints) with it.
      if (
        !isReady(service.status?.conditions) ||
        !service.status?.serviceID ||
        service.metadata.deletionTimestamp
      ) {
        return { requeueAfterMs: SERVICE_NOT_READY_RECHECK_MS };
      }
      pass.status.serviceID = service.status.serviceID;
      await ensureFinalizer(opts.client, KeystoneKinds.KeystoneAPI, api, parentFinalizer(pass));
      await ensureFinalizer(opts.client, KeystoneKinds.KeystoneService, service, parentFinalizer(pass));
      try {
        const registered = await reconcileCatalogEndpoints(pass.identity!, endpointsSpec(pass), pass.changes);
        pass.status.endpointIDs = registered.endpointIDs;
        pass.status.endpoints = registered.endpoints;
      } catch (err) {
        markFailed(
          pass.conditions,
          T.KeystoneServiceOSEndpointsReady,
          M.KeystoneServiceOSEndpointsReadyError,
          err,
        );
        throw err;
      }
      pass.conditions.markTrue(
        T.KeystoneServiceOSEndpointsReady,
        M.KeystoneServiceOSEndpointsReady,
        endpointsSummary(pass.status.endpoints ?? []),
      );
      return {};
    },
    async unregister(pass) {
      await deleteCatalogEndpoints(pass.identity!, endpointsSpec(pass), pass.changes);
      pass.status.endpointIDs = {};
      pass.status.endpoints = [];
    },
    async releaseParents(pass, api) {
      const service = serviceOf(pass);
      if (service) {
        await removeFinalizer(
          opts.client,
          KeystoneKinds.KeystoneService,
          service,
          parentFinalizer(pass),
        ).catch(ignoreNotFound);
      }
      if (api) {
        await removeFinalizer(opts.client, KeystoneKinds.KeystoneAPI, api, parentFinalizer(pass)).catch(
          ignoreNotFound,
        );
      }
    },
  };
}

export class KeystoneEndpointReconciler extends DependantReconciler<KeystoneEndpoint, Status> {
  constructor(opts: DependantReconcilerOptions) {
    super(keystoneEndpointDefinition(opts), opts);
  }
}
