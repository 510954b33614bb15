import {
  ApiError,
  errorDetail,
  isBadRequest,
  isInvalid,
  type KindRef,
  Kinds,
  type KubeObject,
} from '@stackops/lib-common/client';
import { applyOwned, inWaves, pruneOwned } from '@stackops/lib-common/objects';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { ReadyReason, ROLE_CONTROL_PLANE, ROLE_WORKER } from '../../api/constants.js';
import type { SIPCluster } from '../../api/kinds.js';
import type { SIPClusterServices } from '../../api/services.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../resources/labels.js';
import type { DesiredObject } from '../../resources/objects.js';
import { clusterRefOf } from '../../scheduling/claims.js';
import type { SiteTemplate } from '../../services/context.js';
import { ServiceInputError } from '../../services/errors.js';
import { renderServices } from '../../services/render.js';
import { fromStep, type SIPClusterPass } from '../context.js';

/** The kinds of the objects services are made of (owned by the SIPCluster, pruned when no longer wanted). */
export const SERVICE_KINDS: readonly KindRef[] = [
  Kinds.Secret,
  Kinds.ConfigMap,
  Kinds.Service,
  Kinds.Deployment,
];

/** Invalid input in the services (fixed by the user): an Error, retried slowly and on every change. */
const serviceFailure = (message: string, cause?: unknown) =>
  new ReconcileError(message, { reason: ReadyReason.InfraServiceFailure, severity: 'Error', cause });

type Cache = SIPClusterPass['cache'];

/** A Secret in the SIPCluster's namespace that a service needs, or a failure naming the field that names it. */
function requiredSecret(cache: Cache, sip: SIPCluster, name: string, field: string): KubeObject {
  const secret = cache.get<KubeObject>(Kinds.Secret, { namespace: sip.metadata.namespace, name });
  if (!secret) throw serviceFailure(`${field}: Secret ${sip.metadata.namespace}/${name} not found`);
  return secret;
}

/** Checks the Secrets the services reference exist and returns the jump host's private key names. */
function referencedSecrets(cache: Cache, sip: SIPCluster, services: SIPClusterServices): string[] {
  const keys = new Set<string>();
  for (const jh of services.jumpHost ?? []) {
    const secret = requiredSecret(cache, sip, jh.nodeSSHPrivateKeys, 'jumpHost.nodeSSHPrivateKeys');
    for (const k of Object.keys((secret['data'] as Record<string, string> | undefined) ?? {})) keys.add(k);
  }
  for (const auth of services.auth ?? []) {
    if (auth.tlsSecret) requiredSecret(cache, sip, auth.tlsSecret, 'auth.tlsSecret');
    if (auth.envFromSecret) requiredSecret(cache, sip, auth.envFromSecret, 'auth.envFromSecret');
    (auth.staticClients ?? []).forEach((c, i) => {
      if (!c.secretRef) return;
      const secret = requiredSecret(cache, sip, c.secretRef.name, `auth.staticClients[${i}].secretRef`);
      if (!(c.secretRef.key in ((secret['data'] as Record<string, string> | undefined) ?? {}))) {
        throw serviceFailure(
          `auth.staticClients[${i}].secretRef: Secret ${sip.metadata.namespace}/${c.secretRef.name} has no key ${c.secretRef.key}`,
        );
      }
    });
  }
  return [...keys].sort();
}

/**
 * The site's HAProxy templates, by role: ConfigMaps `loadbalancercontrolplane` (key
 * `loadBalancerControlPlane.cfg`) and `loadbalancerworker` (key `loadBalancerWorker.cfg`) in the
 * SIPCluster's namespace, as upstream reads them. A role without one gets the built-in config.
 */
export const LOAD_BALANCER_TEMPLATES = [
  { role: ROLE_CONTROL_PLANE, configMap: 'loadbalancercontrolplane', key: 'loadBalancerControlPlane.cfg' },
  { role: ROLE_WORKER, configMap: 'loadbalancerworker', key: 'loadBalancerWorker.cfg' },
] as const;

function loadBalancerTemplates(cache: Cache, sip: SIPCluster): Map<string, SiteTemplate> {
  const namespace = sip.metadata.namespace;
  const templates = new Map<string, SiteTemplate>();
  for (const t of LOAD_BALANCER_TEMPLATES) {
    const cm = cache.get<KubeObject & { data?: Record<string, string> }>(Kinds.ConfigMap, {
      namespace,
      name: t.configMap,
    });
    const text = cm?.data?.[t.key];
    if (text !== undefined)
      templates.set(t.role, { source: `ConfigMap ${namespace}/${t.configMap}, key ${t.key}`, text });
  }
  return templates;
}

const withManagedBy = (obj: KubeObject): KubeObject => ({
  ...obj,
  metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [MANAGED_BY_LABEL]: MANAGED_BY } },
});

/** Applies one object when it differs; returns the live object (with its status) after the call. */
async function applyService(p: SIPClusterPass, d: DesiredObject): Promise<KubeObject> {
  const ref = { namespace: d.object.metadata.namespace, name: d.object.metadata.name ?? '' };
  try {
    const current = p.cache.get<KubeObject>(d.kind, ref) ?? null;
    return (await applyOwned(p.client, p.cr, d.kind, d.object, { current })).object;
  } catch (e) {
    const what = `${d.kind.kind} ${ref.namespace}/${ref.name}`;
    // The API server refused the object itself (e.g. a nodePort outside its range or already taken).
    if (e instanceof ApiError && (isInvalid(e) || isBadRequest(e)))
      throw serviceFailure(`${what}: ${errorDetail(e)}`, e);
    const message = e instanceof Error ? e.message : String(e);
    throw new ReconcileError(`${what}: ${message}`, {
      reason: ReadyReason.InfraServiceFailure,
      severity: 'Warning',
      cause: e,
    });
  }
}

/**
 * Renders every service from the gathered hosts and applies what changed (server-side apply,
 * owned by the SIPCluster, skipped when already up to date; Secrets, ConfigMaps and Services at
 * once, each Deployment once the Secrets and ConfigMaps it may mount are written), then deletes the objects of services
 * dropped from the spec. Deployments roll when their config hash changes. Fails with
 * InfraServiceFailure (a missing Secret, an invalid key, an object the API server refused).
 */
export async function deployServices(p: SIPClusterPass): Promise<void> {
  const gathered = fromStep(p.gathered, 'gatherHosts');
  const services = p.cr.spec.services;
  const privateKeyNames = referencedSecrets(p.cache, p.cr, services);
  // Imported here, not at the top: the YAML writer would otherwise be compiled at every start of
  // the operator, before it is ready (ADR 0057); and only for Dex's config, the one YAML it writes
  // (loading it costs the first pass ~8 ms).
  const stringifyYaml = services.auth?.length
    ? (await import('@stackops/lib-common/yaml')).stringifyYaml
    : undefined;
  let objects: DesiredObject[];
  try {
    objects = renderServices(
      {
        cluster: clusterRefOf(p.cr),
        hostsByRole: gathered.hostsByRole,
        images: p.images,
        loadBalancerTemplates: loadBalancerTemplates(p.cache, p.cr),
        ...(stringifyYaml ? { stringifyYaml } : {}),
      },
      services,
      privateKeyNames,
    ).map((d) => ({ kind: d.kind, object: withManagedBy(d.object) }));
  } catch (e) {
    if (e instanceof ServiceInputError) throw serviceFailure(e.message, e);
    throw e;
  }
  // The live objects (as the API server returned them, or the cache when up to date): the
  // Deployments' status tells reportReady whether the services have rolled out.
  const live = await inWaves(
    objects,
    (d) => d.kind.kind,
    (d) => applyService(p, d),
    { objectOf: (d) => d.object },
  );
  const pruned = await pruneOwned(p.client, p.cache, {
    kinds: SERVICE_KINDS,
    owner: p.cr,
    keep: objects.map((d) => d.object),
  });
  for (const { kind, object } of pruned) {
    p.log.info(
      { kind: kind.kind, name: object.metadata.name },
      'deleted the object of a service no longer in the spec',
    );
  }
  const deployments = live.filter((_, i) => objects[i]?.kind === Kinds.Deployment);
  p.deployed = { instances: deployments.map((d) => d.metadata.name ?? ''), deployments };
}
