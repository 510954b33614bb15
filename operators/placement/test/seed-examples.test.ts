import { type KeystoneEndpoint, KeystoneKinds } from '@stackops/keystone-operator';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { runCommand, setLoadBalancerIP, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conditionOf,
  createDatabaseService,
  createPlacementAPI,
  createReadyKeystoneAPI,
  createSecret,
  OSP_SECRET,
  simulateKeystoneRegistration,
  waitForCondition,
  waitForPlacement,
} from './support/fixtures.js';
import { fixture, readYaml, tool, useOperator } from './support/harness.js';

/**
 * The upstream README's examples, applied with kubectl as a user would (strict field validation),
 * unchanged; then what each example promises is checked on the real control plane.
 */

type Deployment = KubeObject & {
  spec: {
    template: {
      metadata: { annotations?: Record<string, string> };
      spec: { containers: { image: string }[] };
    };
  };
};
type Service = KubeObject & { spec: { type: string } };

const suite = useOperator({ beforeAll, afterAll }, 4);
const ns = (i: number) => suite.namespaces[i]!;

/** `kubectl apply` off the event loop: the operator runs in this process and keeps reconciling. */
const kubectlApply = (namespace: string, file: string): Promise<string> =>
  runCommand(tool('kubectl'), ['apply', '-n', namespace, '-f', fixture(file)]);

/** The seed's Secret name, with install_yamls' keys. */
async function prerequisites(namespace: string) {
  await createSecret(suite.client, namespace, OSP_SECRET, 'placement-secret');
  await createDatabaseService(suite.client, namespace);
  await createReadyKeystoneAPI(suite.client, namespace);
}

describe('seed README examples, applied unchanged', () => {
  it('API Example: becomes Ready with the given image', async () => {
    const n = ns(0);
    await prerequisites(n);
    expect(await kubectlApply(n, 'seed/placementapi-basic.yaml')).toContain(
      'placementapi.placement.openstack.org/placement created',
    );
    await simulateKeystoneRegistration(suite.client, n);
    await waitForCondition(suite.client, n, 'Ready', 'True', { timeoutMs: 120_000 });
    const deploy = await suite.client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace: n });
    expect(deploy?.spec.template.spec.containers.map((c) => c.image)).toEqual([
      'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified',
      'quay.io/podified-antelope-centos9/openstack-placement-api:current-podified',
    ]);
  });

  it('additional networks: waits for the NAD, attaches the pods, reports their addresses', async () => {
    const n = ns(1);
    const client = suite.client;
    await prerequisites(n);
    await kubectlApply(n, 'seed/placementapi-network-attachments.yaml');
    await waitForCondition(client, n, 'NetworkAttachmentsReady', 'False', {
      message: 'NetworkAttachment resources missing: storage',
      timeoutMs: 90_000,
    });

    const [nad] = readYaml(fixture('seed/network-attachment-definition.yaml'));
    await client.create(Kinds.NetworkAttachmentDefinition, {
      ...nad!,
      metadata: { ...nad!.metadata, namespace: n },
    });
    const deploy = await waitUntil(
      'pods attached to storage',
      async () => {
        const d = await client.get<Deployment>(Kinds.Deployment, { name: 'placement', namespace: n });
        return d?.spec.template.metadata.annotations?.['k8s.v1.cni.cncf.io/networks']?.includes('storage')
          ? d
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(JSON.parse(deploy.spec.template.metadata.annotations!['k8s.v1.cni.cncf.io/networks']!)).toEqual([
      { name: 'storage', namespace: n, interface: 'storage' },
    ]);
    await waitForCondition(client, n, 'NetworkAttachmentsReady', 'False', {
      message:
        'NetworkAttachments error occurred not all pods have interfaces with ips as configured in NetworkAttachments: [storage]',
      timeoutMs: 90_000,
    });

    // What multus reports once the interface is up, on the pod of the attached template.
    const pod = await waitUntil(
      'one live pod of the attached template',
      async () => {
        const live = (
          await client.list(Kinds.Pod, { namespace: n, labelSelector: 'service=placement' })
        ).items.filter(
          (p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet',
        );
        const [only] = live;
        return live.length === 1 &&
          only?.metadata.annotations?.['k8s.v1.cni.cncf.io/networks']?.includes('storage')
          ? only
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const status = [{ name: `${n}/storage`, interface: 'net1', ips: ['172.18.0.52'] }];
    await client.patch(
      Kinds.Pod,
      { name: pod.metadata.name!, namespace: n },
      { metadata: { annotations: { 'k8s.v1.cni.cncf.io/network-status': JSON.stringify(status) } } },
      'merge',
    );
    await waitForCondition(client, n, 'NetworkAttachmentsReady', 'True', { timeoutMs: 60_000 });
    await waitForPlacement(
      client,
      n,
      'the pod address in status.networkAttachments',
      (cr) =>
        JSON.stringify(cr.status?.networkAttachments) ===
        JSON.stringify({ [`${n}/storage`]: ['172.18.0.52'] }),
    );
  });

  it('isolated network through MetalLB: a LoadBalancer internal Service, registered under its service name', async () => {
    const n = ns(2);
    const client = suite.client;
    await prerequisites(n);
    await kubectlApply(n, 'seed/placementapi-metallb.yaml');
    const pending = await waitForCondition(client, n, 'CreateServiceReady', 'False', {
      message: 'Create service error occurred placement-internal LoadBalancer IP still pending',
      timeoutMs: 90_000,
    });
    expect(conditionOf(pending, 'Ready')?.status).toBe('False');
    const svc = await client.get<Service>(Kinds.Service, { name: 'placement-internal', namespace: n });
    expect(svc?.spec.type).toBe('LoadBalancer');
    const { 'stackops.io/applied-hash': _applied, ...annotations } = svc?.metadata.annotations ?? {};
    expect(annotations).toEqual({
      'metallb.universe.tf/address-pool': 'osp-internalapi',
      'metallb.universe.tf/allow-shared-ip': 'internalapi',
      'metallb.universe.tf/loadBalancerIPs': '172.17.0.202',
      endpoint: 'internal',
      'core.openstack.org/ingress_create': 'false',
      'dnsmasq.network.openstack.org/hostname': `placement-internal.${n}.svc`,
    });

    await setLoadBalancerIP(client, n, 'placement-internal', '172.17.0.202');
    await simulateKeystoneRegistration(client, n);
    const ready = await waitForCondition(client, n, 'Ready', 'True', { timeoutMs: 120_000 });
    expect(ready.status?.apiEndpoints?.['internal']).toBe(`http://placement-internal.${n}.svc:8778`);
  });
});

describe('override endpointURL', () => {
  it('publishes the given public URL in the KeystoneEndpoint', async () => {
    const n = ns(3);
    const client = suite.client;
    await createSecret(client, n);
    await createDatabaseService(client, n);
    await createReadyKeystoneAPI(client, n);
    const url = 'http://placement-openstack.apps-crc.testing';
    await createPlacementAPI(client, n, { override: { service: { public: { endpointURL: url } } } });
    await simulateKeystoneRegistration(client, n);
    const ready = await waitForCondition(client, n, 'Ready', 'True', { timeoutMs: 120_000 });
    expect(ready.status?.apiEndpoints).toEqual({
      internal: `http://placement-internal.${n}.svc:8778`,
      public: url,
    });
    const ep = await client.get<KeystoneEndpoint>(KeystoneKinds.KeystoneEndpoint, {
      name: 'placement',
      namespace: n,
    });
    expect(ep?.spec.endpoints).toEqual(ready.status?.apiEndpoints);
  });
});
