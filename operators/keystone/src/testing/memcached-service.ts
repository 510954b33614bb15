import type { KubeObject } from '@stackops/lib-common/client';

/**
 * The Service `memcached` that a KeystoneAPI's `memcachedInstance` names by default (upstream's
 * control plane runs infra-operator's Memcached `memcached`; without that CR keystone takes a
 * Service of that name as its one server). For fake API servers, which apply no CRD default:
 * a KeystoneAPI there without `memcachedInstance` resolves to the same default.
 */
export const memcachedService = (namespace: string, name = 'memcached'): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: 'memcached' }, ports: [{ name: 'memcached', port: 11211 }] },
  }) as KubeObject;
