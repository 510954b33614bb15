import { fileURLToPath } from 'node:url';
import type { KubeClient } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { galeraDatabase, waitUntil } from '@stackops/lib-common/testing';
import { createInputSecret } from './keystone.js';

/** mariadb-operator's and infra-operator's CRDs as tools/crd-types describes them (ADR 0013). */
export const INTEROP_CRDS = fileURLToPath(new URL('../../../../tools/crd-types/crds/', import.meta.url));
const now = () => new Date().toISOString();

/** Sets a status on one of the other operators' CRs, as their controllers (and upstream's functional tests) do. */
export function patchStatus(
  client: KubeClient,
  kind: (typeof ExternalKinds)[keyof typeof ExternalKinds],
  ns: string,
  name: string,
  status: Record<string, unknown>,
) {
  return client.patch(kind, { name, namespace: ns }, { status }, 'merge', { subresource: 'status' });
}

/** A Ready (or not Ready) condition list, as those operators write it. */
export const readyConditions = (type: string, ready = true) => [
  { type, status: ready ? 'True' : 'False', lastTransitionTime: now() },
];

/** What mariadb-operator and infra-operator would have created in the namespace. */
export async function openstackK8sNamespace(client: KubeClient, ns: string) {
  await createInputSecret(client, ns);
  await galeraDatabase(client, ns);
  await client.create(ExternalKinds.Memcached, {
    apiVersion: 'memcached.openstack.org/v1beta1',
    kind: 'Memcached',
    metadata: { name: 'memcached', namespace: ns },
    spec: { containerImage: 'memcached', replicas: 2 },
  });
  await patchStatus(client, ExternalKinds.Memcached, ns, 'memcached', {
    conditions: readyConditions('Ready'),
    serverList: [`memcached-0.memcached.${ns}.svc:11211`, `memcached-1.memcached.${ns}.svc:11211`],
    serverListWithInet: [
      `inet:[memcached-0.memcached.${ns}.svc]:11211`,
      `inet:[memcached-1.memcached.${ns}.svc]:11211`,
    ],
  });
}

/** Plays mariadb-operator once keystone's CRs exist: their Ready conditions, as its controllers set them. */
export async function mariadbOperatorReports(client: KubeClient, ns: string) {
  for (const [kind, type] of [
    [ExternalKinds.MariaDBDatabase, 'MariaDBDatabaseReady'],
    [ExternalKinds.MariaDBAccount, 'MariaDBAccountReady'],
  ] as const) {
    await waitUntil(`${kind.kind} keystone`, () => client.get(kind, { name: 'keystone', namespace: ns }), {
      timeoutMs: 60_000,
    });
    await patchStatus(client, kind, ns, 'keystone', { conditions: readyConditions(type) });
  }
}
