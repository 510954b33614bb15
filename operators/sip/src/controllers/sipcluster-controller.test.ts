import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import type { Manager } from '@stackops/lib-common/runtime';
import { base64, FakeKubeClient, startFakeManager, waitUntil } from '@stackops/lib-common/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BareMetalHostKind, type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import { registerSipClusterController } from './sipcluster-controller.js';

const NS = 't';
const networkData = (ip: string) => ({
  networkData: base64(JSON.stringify({ networks: [{ id: 'oam', ip_address: ip }] })),
});

let fake: FakeKubeClient;
let manager: Manager;

beforeEach(async () => {
  fake = new FakeKubeClient();
  fake.seed(SIPClusterKind, {
    metadata: { name: 'c1', namespace: NS },
    spec: {
      nodes: { ControlPlane: { count: { active: 1, standby: 0 } } },
      services: { loadBalancerControlPlane: [{ nodePort: 30001, nodeInterfaceId: 'oam' }] },
    },
  });
  // Retries far beyond the test's patience: every wake-up below comes from a watch.
  manager = await startFakeManager(fake, (m) =>
    registerSipClusterController(m, {
      images: { loadBalancer: 'lb', jumpHost: 'jh', auth: 'dex' },
      waitingRetryMs: 600_000,
      invalidInputRetryMs: 600_000,
    }),
  );
});
afterEach(async () => {
  await manager.stop();
  fake.close();
});

const ready = () =>
  fake.peek<SIPCluster>(SIPClusterKind, { namespace: NS, name: 'c1' })?.status?.conditions?.[0];
const lbConfig = () => {
  const s = fake.peek<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
    namespace: NS,
    name: 'loadbalancer-controlplane-c1',
  });
  return Buffer.from(s?.data?.['haproxy.cfg'] ?? '', 'base64').toString();
};

describe('SIPCluster controller registration (fake API server)', () => {
  it('a new host, its Secret, an owned object and its status each wake the controller', async () => {
    await waitUntil('Unschedulable', async () => ready()?.reason === 'Unschedulable');

    // A BareMetalHost appearing is what the cluster was waiting for.
    await fake.create(Kinds.Secret, {
      metadata: { name: 'h1-nd', namespace: NS },
      data: networkData('10.0.0.1'),
    });
    await fake.create(BareMetalHostKind, {
      metadata: { name: 'h1', namespace: NS },
      spec: { networkData: { name: 'h1-nd' } },
    });
    await waitUntil('Progressing', async () => ready()?.reason === 'Progressing', { describe: ready });
    expect(lbConfig()).toContain('server h1 10.0.0.1:6443');

    // The load balancer's Deployment rolls out (its status only): that wakes the controller too.
    const lb = { namespace: NS, name: 'loadbalancer-controlplane-c1' };
    const generation = fake.peek(Kinds.Deployment, lb)?.metadata.generation;
    const status = { observedGeneration: generation, replicas: 1, updatedReplicas: 1, availableReplicas: 1 };
    await fake.patch(Kinds.Deployment, lb, { status }, 'merge', { subresource: 'status' });
    await waitUntil('Ready', async () => ready()?.status === 'True', { describe: ready });

    // The host's networkData Secret changes: the load balancer follows.
    await fake.patch(
      Kinds.Secret,
      { namespace: NS, name: 'h1-nd' },
      { data: networkData('10.0.0.9') },
      'merge',
    );
    await waitUntil('the new IP in haproxy.cfg', async () => lbConfig().includes('server h1 10.0.0.9:6443'));

    // An owned object deleted behind the operator's back comes back.
    await fake.delete(Kinds.Deployment, { namespace: NS, name: 'loadbalancer-controlplane-c1' });
    await waitUntil('the Deployment back', async () =>
      fake.peek(Kinds.Deployment, { namespace: NS, name: 'loadbalancer-controlplane-c1' }),
    );
  });
});
