import {
  ApiError,
  applyOwned,
  isBadRequest,
  isInvalid,
  type KindRef,
  Kinds,
  type KubeObject,
} from '@stackops/lib-common/resources';
import { ReadyReason } from '../../api/constants.js';
import type { SIPCluster } from '../../api/kinds.js';
import type { SIPClusterServices } from '../../api/services.js';
import type { ServiceImages } from '../../config/images.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../resources/labels.js';
import type { DesiredObject } from '../../resources/objects.js';
import { ServiceInputError } from '../../services/errors.js';
import { renderServices } from '../../services/render.js';
import { type StepContext, StepFailure } from '../context.js';
import { clusterRefOf, type GatheredHosts } from './gather-hosts.js';

/** The kinds of the objects services are made of (owned by the SIPCluster, pruned when no longer wanted). */
export const SERVICE_KINDS: readonly KindRef[] = [
  Kinds.Secret,
  Kinds.ConfigMap,
  Kinds.Service,
  Kinds.Deployment,
];

const serviceFailure = (message: string, cause?: unknown) =>
  new StepFailure(ReadyReason.InfraServiceFailure, 'Error', 'InfraServiceFailure', message, cause);

/** A Secret in the SIPCluster's namespace that a service needs, or a failure naming the field that names it. */
function requiredSecret(ctx: StepContext, sip: SIPCluster, name: string, field: string): KubeObject {
  const secret = ctx.cache.get<KubeObject>(Kinds.Secret, { namespace: sip.metadata.namespace, name });
  if (!secret) throw serviceFailure(`${field}: Secret ${sip.metadata.namespace}/${name} not found`);
  return secret;
}

/** Checks the Secrets the services reference exist and returns the jump host's private key names. */
function referencedSecrets(ctx: StepContext, sip: SIPCluster, services: SIPClusterServices): string[] {
  const keys = new Set<string>();
  for (const jh of services.jumpHost ?? []) {
    const secret = requiredSecret(ctx, sip, jh.nodeSSHPrivateKeys, 'jumpHost.nodeSSHPrivateKeys');
    for (const k of Object.keys((secret['data'] as Record<string, string> | undefined) ?? {})) keys.add(k);
  }
  for (const auth of services.auth ?? []) {
    if (auth.tlsSecret) requiredSecret(ctx, sip, auth.tlsSecret, 'auth.tlsSecret');
    if (auth.envFromSecret) requiredSecret(ctx, sip, auth.envFromSecret, 'auth.envFromSecret');
    (auth.staticClients ?? []).forEach((c, i) => {
      if (!c.secretRef) return;
      const secret = requiredSecret(ctx, sip, c.secretRef.name, `auth.staticClients[${i}].secretRef`);
      if (!(c.secretRef.key in ((secret['data'] as Record<string, string> | undefined) ?? {}))) {
        throw serviceFailure(
          `auth.staticClients[${i}].secretRef: Secret ${sip.metadata.namespace}/${c.secretRef.name} has no key ${c.secretRef.key}`,
        );
      }
    });
  }
  return [...keys].sort();
}

const withManagedBy = (obj: KubeObject): KubeObject => ({
  ...obj,
  metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [MANAGED_BY_LABEL]: MANAGED_BY } },
});

const objectKey = (kind: KindRef, name: string | undefined) => `${kind.kind}/${name ?? ''}`;

async function applyService(ctx: StepContext, sip: SIPCluster, d: DesiredObject): Promise<boolean> {
  const ref = { namespace: d.object.metadata.namespace, name: d.object.metadata.name ?? '' };
  try {
    const current = ctx.cache.get<KubeObject>(d.kind, ref) ?? null;
    const { applied } = await applyOwned(ctx.client, sip, d.kind, withManagedBy(d.object), { current });
    return applied;
  } catch (e) {
    const what = `${d.kind.kind} ${ref.namespace}/${ref.name}`;
    // The API server refused the object itself (e.g. a nodePort outside its range or already taken).
    if (e instanceof ApiError && (isInvalid(e) || isBadRequest(e)))
      throw serviceFailure(`${what}: ${e.statusMessage}`, e);
    const message = e instanceof Error ? e.message : String(e);
    throw new StepFailure(
      ReadyReason.InfraServiceFailure,
      'Warning',
      'InfraServiceFailure',
      `${what}: ${message}`,
      e,
    );
  }
}

/** Deletes the objects of services the spec no longer has (owned by this SIPCluster, made by this operator). */
async function pruneServices(
  ctx: StepContext,
  sip: SIPCluster,
  wanted: ReadonlySet<string>,
): Promise<number> {
  let deleted = 0;
  for (const kind of SERVICE_KINDS) {
    const owned = ctx.cache
      .list<KubeObject>(kind, {
        namespace: sip.metadata.namespace,
        labelSelector: { [MANAGED_BY_LABEL]: MANAGED_BY },
      })
      .filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === sip.metadata.uid && r.controller));
    for (const o of owned) {
      if (wanted.has(objectKey(kind, o.metadata.name))) continue;
      await ctx.client.delete(kind, { namespace: o.metadata.namespace, name: o.metadata.name ?? '' });
      ctx.log.info(
        { kind: kind.kind, name: o.metadata.name },
        'deleted the object of a service no longer in the spec',
      );
      deleted++;
    }
  }
  return deleted;
}

export interface DeployResult {
  /** Service instance names (Deployments), in spec order. */
  instances: string[];
  /** How many objects were written or deleted. */
  writes: number;
}

/**
 * Service infrastructure phase: renders every service from the gathered hosts and applies what
 * changed (server-side apply, owned by the SIPCluster, skipped when already up to date), then
 * removes the objects of services dropped from the spec. Deployments roll when their config
 * hash changes. Throws StepFailure (InfraServiceFailure).
 */
export async function deployServices(
  ctx: StepContext,
  sip: SIPCluster,
  gathered: GatheredHosts,
  images: ServiceImages,
): Promise<DeployResult> {
  const services = sip.spec.services;
  const privateKeyNames = referencedSecrets(ctx, sip, services);
  let objects: DesiredObject[];
  try {
    objects = renderServices(
      { cluster: clusterRefOf(sip), hostsByRole: gathered.hostsByRole, images },
      services,
      privateKeyNames,
    );
  } catch (e) {
    if (e instanceof ServiceInputError) throw serviceFailure(e.message, e);
    throw e;
  }
  let writes = 0;
  for (const d of objects) if (await applyService(ctx, sip, d)) writes++;
  writes += await pruneServices(
    ctx,
    sip,
    new Set(objects.map((d) => objectKey(d.kind, d.object.metadata.name))),
  );
  const instances = objects
    .filter((d) => d.kind === Kinds.Deployment)
    .map((d) => d.object.metadata.name ?? '');
  return { instances, writes };
}
