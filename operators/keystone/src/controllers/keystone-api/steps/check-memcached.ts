import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { ExternalKinds, type Memcached } from '@stackops/lib-common/external';
import { serviceHostname } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { holdFinalizer, readExternal, releaseFinalizer } from '@stackops/lib-common/runtime';
import { KeystoneFinalizers } from '../../../api/finalizers.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

const MEMCACHED_PORT = 11211;
type MemcachedCR = Memcached & KubeObject;

function memcachedPort(svc: KubeObject): number {
  const ports = (svc['spec'] as { ports?: { name?: string; port: number }[] } | undefined)?.ports ?? [];
  return (ports.find((p) => p.name === 'memcached') ?? ports[0])?.port ?? MEMCACHED_PORT;
}

const isReady = (m: MemcachedCR): boolean =>
  m.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * The Secret of the client certificate keystone presents when the Memcached verifies clients
 * (`spec.tls.mtls.sslVerifyMode` Request or Require), as upstream's GetMemcachedMTLSSecret.
 */
function mtlsClientSecret(m: MemcachedCR): string | undefined {
  const mtls = m.spec?.tls?.mtls;
  if (mtls?.sslVerifyMode !== 'Request' && mtls?.sslVerifyMode !== 'Require') return undefined;
  return mtls.authCertSecret?.secretName || undefined;
}

/** Adds keystone's finalizer to the Memcached CR (upstream: it outlives the KeystoneAPI using it). */
async function holdMemcached(ctx: KeystoneApiPass, m: MemcachedCR): Promise<void> {
  await holdFinalizer(ctx.client, ExternalKinds.Memcached, m, KeystoneFinalizers.KeystoneAPI);
}

/**
 * The cache keystone uses, named by `memcachedInstance`. As upstream: infra-operator's Memcached
 * CR of that name — missing is a Warning and a wait; keystone's finalizer goes on it; not Ready
 * is an Info wait; then its per-pod `status.serverList` (and `serverListWithInet`, `tlsSupport`)
 * fill the `[cache]` section. Without that CR (or without infra-operator at all), a Service of that
 * name is used as one server (stackops' own deployments run memcached behind a plain Service).
 * The CR is read from the controller's optional watch of Memcached (`readExternal`: no request
 * when its CRD is absent or its informer knows; a GET only while that is not known yet); a change
 * of the CR or the Service wakes the KeystoneAPI, and waits also re-check on a timer.
 */
export async function checkMemcached(ctx: KeystoneApiPass): Promise<StepResult> {
  const name = ctx.spec.memcachedInstance;
  if (!name) {
    ctx.memcachedServers = '';
    return undefined;
  }
  const ns = ctx.cr.metadata.namespace ?? '';
  const memcached = await readExternal<MemcachedCR>(ctx, ExternalKinds.Memcached, { name, namespace: ns });
  if (memcached) {
    await holdMemcached(ctx, memcached);
    if (!isReady(memcached)) {
      ctx.conditions.markRequested(
        ConditionType.MemcachedReady,
        ' Memcached instance has not been provisioned',
      );
      return stop(RECHECK_AFTER_MS);
    }
    const servers = memcached.status?.serverList ?? [];
    ctx.memcachedServers = servers.join(',');
    const mtlsSecret = mtlsClientSecret(memcached);
    ctx.memcached = {
      tls: memcached.status?.tlsSupport ?? false,
      serversWithInet: (memcached.status?.serverListWithInet ?? servers).join(','),
      ...(mtlsSecret ? { mtlsSecret } : {}),
    };
    ctx.conditions.markTrue(ConditionType.MemcachedReady);
    return undefined;
  }
  const svc = ctx.cache.get(Kinds.Service, { name, namespace: ns });
  if (!svc) {
    ctx.conditions.markFalse(
      ConditionType.MemcachedReady,
      'Error',
      'Warning',
      ' Memcached instance has not been provisioned',
    );
    return stop(RECHECK_AFTER_MS);
  }
  ctx.memcachedServers = `${serviceHostname(name, ns)}:${memcachedPort(svc)}`;
  ctx.memcached = { tls: false, serversWithInet: ctx.memcachedServers };
  ctx.conditions.markTrue(ConditionType.MemcachedReady);
  return undefined;
}

/** Deletion: keystone's finalizer leaves the Memcached CR (upstream reconcileDelete). */
export async function releaseMemcached(ctx: KeystoneApiPass): Promise<StepResult> {
  const name = ctx.spec.memcachedInstance;
  if (!name) return undefined;
  const ref = { name, namespace: ctx.cr.metadata.namespace ?? '' };
  await releaseFinalizer(ctx.client, ExternalKinds.Memcached, ref, KeystoneFinalizers.KeystoneAPI);
  return undefined;
}
