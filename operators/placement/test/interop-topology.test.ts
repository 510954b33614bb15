import { fileURLToPath } from 'node:url';
import { Kinds, type KubeObject, type RestKubeClient } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { installCrds, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  createPlacementAPI,
  createPrerequisites,
  simulateKeystoneRegistration,
  waitForCondition,
} from './support/fixtures.js';
import { adminClient, useOperator } from './support/harness.js';

// infra-operator's Topology CRD as tools/crd-types describes it (ADR 0013).
const INTEROP_CRDS = fileURLToPath(new URL('../../../tools/crd-types/crds/', import.meta.url));
const FINALIZER = 'openstack.org/placementapi-placement';

type WithPods = KubeObject & { spec: { template: { spec: Record<string, unknown> } } };

const spread = { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' };
const affinity = {
  nodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
    ],
  },
};

const podSpec = async (client: RestKubeClient, kind: typeof Kinds.Job, ns: string, name: string) =>
  (await client.get<WithPods>(kind, { name, namespace: ns }))?.spec.template.spec;

// Installed before the operator starts, so its Topology watch begins at once.
beforeAll(async () => {
  const client = adminClient();
  await installCrds(client, INTEROP_CRDS);
  client.close();
});
const suite = useOperator({ beforeAll, afterAll }, 1);

describe('PlacementAPI topologyRef (infra-operator Topology)', () => {
  it('waits for the named Topology, then places the Deployment and the db-sync Job by it and holds its finalizer', async () => {
    const client = suite.client;
    const ns = suite.namespaces[0]!;
    await createPrerequisites(client, ns);
    await createPlacementAPI(client, ns, { topologyRef: { name: 'placement-topology' } });
    await waitForCondition(client, ns, 'TopologyReady', 'False', {
      message: /Topology config create error occurred Topology placement-topology not found/,
    });

    // Its creation is watched: the PlacementAPI goes on without a timer.
    await client.create(ExternalKinds.Topology, {
      apiVersion: 'topology.openstack.org/v1beta1',
      kind: 'Topology',
      metadata: { name: 'placement-topology', namespace: ns },
      spec: { topologySpreadConstraints: [spread], affinity },
    });
    await waitForCondition(client, ns, 'TopologyReady', 'True', {
      message: 'Topology config create completed',
      timeoutMs: 5_000,
    });
    await simulateKeystoneRegistration(client, ns);
    const ready = await waitForCondition(client, ns, 'Ready', 'True', { timeoutMs: 120_000 });
    expect(ready.status?.lastAppliedTopology).toEqual({ name: 'placement-topology', namespace: ns });

    const placed = {
      affinity,
      topologySpreadConstraints: [
        { ...spread, labelSelector: { matchLabels: { service: 'placement', owner: 'placement' } } },
      ],
    };
    expect(await podSpec(client, Kinds.Deployment, ns, 'placement')).toMatchObject(placed);
    expect(await podSpec(client, Kinds.Job, ns, 'placement-db-sync')).toMatchObject(placed);
    const topology = await client.get(ExternalKinds.Topology, { name: 'placement-topology', namespace: ns });
    expect(topology?.metadata.finalizers).toContain(FINALIZER);

    // Deleting the PlacementAPI lets go of the Topology.
    await client.delete(PlacementAPIKind, { name: 'placement', namespace: ns });
    await waitUntil('placement finalizer off the Topology', async () => {
      const t = await client.get(ExternalKinds.Topology, { name: 'placement-topology', namespace: ns });
      return !t?.metadata.finalizers?.includes(FINALIZER);
    });
  });
});
