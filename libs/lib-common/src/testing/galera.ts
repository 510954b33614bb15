import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import type { Galera } from '../external/galera.js';
import { ExternalKinds } from '../external/kinds.js';

/**
 * What mariadb-operator would have made in `namespace` for the Galera CR `name` (as in an
 * openstack-k8s-operators namespace): the CR, and the `mysql` Service it runs for it, labelled as
 * mariadb-operator labels it. The Galera CRD must be installed (tools/crd-types/crds).
 */
export async function galeraDatabase(
  client: KubeClient,
  namespace: string,
  name = 'openstack',
): Promise<{ galera: Galera; service: KubeObject }> {
  const galera = await client.create<Galera>(ExternalKinds.Galera, {
    apiVersion: 'mariadb.openstack.org/v1beta1',
    kind: 'Galera',
    metadata: { name, namespace },
    spec: { containerImage: 'mariadb', replicas: 1, secret: 'osp-secret', storageRequest: '1G' },
  });
  const service = await client.create(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { app: 'mariadb', cr: `mariadb-${name}` } },
    spec: { ports: [{ name: 'mysql', port: 3306 }] },
  });
  return { galera, service };
}
