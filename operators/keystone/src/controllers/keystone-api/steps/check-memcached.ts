import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { serviceHostname } from '@stackops/lib-common/openstack';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

const MEMCACHED_PORT = 11211;

function memcachedPort(svc: KubeObject): number {
  const ports = (svc['spec'] as { ports?: { name?: string; port: number }[] } | undefined)?.ports ?? [];
  return (ports.find((p) => p.name === 'memcached') ?? ports[0])?.port ?? MEMCACHED_PORT;
}

/**
 * The memcached Service named by `memcachedInstance` (if any) gives the `[cache]` servers.
 * A missing Service is a Warning and a wait, not an error: memcached is often created after
 * Keystone, and its Service appearing brings the reconcile back (the Service watch).
 */
export async function checkMemcached(ctx: KeystoneApiPass): Promise<StepResult> {
  const name = ctx.spec.memcachedInstance;
  if (!name) {
    ctx.memcachedServers = '';
    return undefined;
  }
  const ns = ctx.cr.metadata.namespace ?? '';
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
  ctx.conditions.markTrue(ConditionType.MemcachedReady);
  return undefined;
}
