import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { setLoadBalancerIP, waitUntil } from '@stackops/lib-common/testing';

const NAD = Kinds.NetworkAttachmentDefinition;

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, getObject, readYaml, useOperator } from './support/harness.js';
import {
  conditionOf,
  createKeystoneFromFixture,
  preparedNamespace,
  serviceEndpoints,
  waitForKeystone,
  waitForKeystoneReady,
} from './support/keystone.js';

describe('the seed README examples, applied as written', () => {
  const suite = useOperator({ beforeAll, afterAll });
  let client: KubeClient;
  beforeAll(() => {
    client = suite.client;
  });
  const prepared = () => preparedNamespace(suite);

  it('API Example: the KeystoneAPI becomes Ready with its endpoints published', async () => {
    const ns = await prepared();
    await createKeystoneFromFixture(client, ns, 'seed/keystoneapi-basic.yaml');
    const cr = await waitForKeystoneReady(client, ns);
    expect(cr.status?.apiEndpoints).toEqual(serviceEndpoints(ns));
    expect(cr.status).toMatchObject({
      readyCount: 1,
      databaseHostname: `openstack.${ns}.svc`,
      region: 'regionOne',
    });
    expect(cr.metadata.finalizers).toContain('openstack.org/keystoneapi');
    const deploy = await getObject(client, Kinds.Deployment, ns, 'keystone');
    expect(deploy).toBeDefined();
    for (const job of ['keystone-db-create', 'keystone-db-sync', 'keystone-bootstrap']) {
      const j = await getObject<KubeObject & { status?: { succeeded?: number } }>(client, Kinds.Job, ns, job);
      expect(j?.status?.succeeded, job).toBe(1);
    }
  });

  it('MetalLB example: the internal Service is a LoadBalancer with the annotations; Ready once it has an IP', async () => {
    const ns = await prepared();
    await createKeystoneFromFixture(client, ns, 'seed/keystoneapi-metallb.yaml');
    const pending = await waitForKeystone(client, ns, 'CreateServiceReady False (IP pending)', (cr) =>
      (conditionOf(cr, 'CreateServiceReady')?.message ?? '').includes('LoadBalancer IP still pending'),
    );
    expect(conditionOf(pending, 'CreateServiceReady')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      message: 'Create service error occurred keystone-internal LoadBalancer IP still pending',
    });
    expect(conditionOf(pending, 'Ready')?.status).toBe('False');
    const svc = await getObject(client, Kinds.Service, ns, 'keystone-internal');
    expect(svc?.['spec']).toMatchObject({
      type: 'LoadBalancer',
      ports: [{ name: 'keystone-internal', port: 5000 }],
    });
    expect(svc?.metadata.annotations).toMatchObject({
      'metallb.universe.tf/address-pool': 'osp-internalapi',
      'metallb.universe.tf/allow-shared-ip': 'osp-internalapi',
      'metallb.universe.tf/loadBalancerIPs': '172.17.0.202',
      'dnsmasq.network.openstack.org/hostname': `keystone-internal.${ns}.svc`,
      endpoint: 'internal',
      'core.openstack.org/ingress_create': 'false',
    });
    await setLoadBalancerIP(client, ns, 'keystone-internal', '172.17.0.202');
    const ready = await waitForKeystoneReady(client, ns);
    expect(ready.status?.apiEndpoints).toEqual(serviceEndpoints(ns));
    const pub = await getObject(client, Kinds.Service, ns, 'keystone-public');
    expect(pub?.['spec']).toMatchObject({ type: 'ClusterIP' });
    expect(pub?.metadata.annotations?.['core.openstack.org/ingress_create']).toBe('true');
  });

  it('additional networks example: pods get the multus annotation; Ready once they report an IP on storage', async () => {
    const ns = await prepared();
    const [nad] = readYaml(fixture('seed/network-attachment-definition.yaml'));
    await client.create(NAD, { ...nad!, metadata: { ...nad!.metadata, namespace: ns } });
    await createKeystoneFromFixture(client, ns, 'seed/keystoneapi-network-attachments.yaml');
    const waiting = await waitForKeystone(client, ns, 'NetworkAttachmentsReady False', (cr) =>
      (conditionOf(cr, 'NetworkAttachmentsReady')?.message ?? '').includes('not all pods'),
    );
    expect(conditionOf(waiting, 'NetworkAttachmentsReady')?.message).toBe(
      'NetworkAttachments error occurred not all pods have interfaces with ips as configured in NetworkAttachments: [storage]',
    );
    const deploy = await getObject<
      KubeObject & { spec: { template: { metadata: { annotations: Record<string, string> } } } }
    >(client, Kinds.Deployment, ns, 'keystone');
    expect(JSON.parse(deploy!.spec.template.metadata.annotations['k8s.v1.cni.cncf.io/networks']!)).toEqual([
      { name: 'storage', namespace: ns, interface: 'storage' },
    ]);
    // What multus would do: report the pod's interface on the storage network.
    const pods = await waitUntil('a keystone pod', async () => {
      const list = await client.list(Kinds.Pod, { namespace: ns, labelSelector: 'service=keystone' });
      const api = list.items.filter((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'ReplicaSet'));
      return api.length > 0 ? api : undefined;
    });
    for (const pod of pods) {
      const status = [{ name: `${ns}/storage`, interface: 'net1', ips: ['172.18.0.52'] }];
      await client.patch(
        Kinds.Pod,
        { name: pod.metadata.name ?? '', namespace: ns },
        { metadata: { annotations: { 'k8s.v1.cni.cncf.io/network-status': JSON.stringify(status) } } },
        'merge',
      );
    }
    const ready = await waitForKeystoneReady(client, ns);
    expect(ready.status?.networkAttachments).toEqual({ [`${ns}/storage`]: ['172.18.0.52'] });
  });
});
