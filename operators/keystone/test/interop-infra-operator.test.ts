import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { ExternalKinds } from '@stackops/lib-common/external';
import { createSecret, installCrds, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, getObject, useOperator } from './support/harness.js';
import {
  conditionOf,
  createKeystone,
  isReady,
  patchKeystoneSpec,
  waitForKeystone,
  waitForKeystoneCondition,
} from './support/keystone.js';
import {
  INTEROP_CRDS,
  mariadbOperatorReports,
  openstackK8sNamespace,
  patchStatus,
  readyConditions,
} from './support/openstack-k8s.js';

type PodSpec = { affinity?: unknown; topologySpreadConstraints?: unknown[] };
type WithPods = KubeObject & { spec: { template: { spec: PodSpec } } };
type SecretData = KubeObject & { data?: Record<string, string> };

const spread = {
  maxSkew: 1,
  topologyKey: 'kubernetes.io/hostname',
  whenUnsatisfiable: 'ScheduleAnyway',
};
const affinityFor = (value: string) => ({
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      {
        weight: 80,
        podAffinityTerm: {
          labelSelector: { matchLabels: { placed: value } },
          topologyKey: 'kubernetes.io/hostname',
        },
      },
    ],
  },
});

function createTopology(client: KubeClient, ns: string, name: string, affinityValue: string) {
  return client.create(ExternalKinds.Topology, {
    apiVersion: 'topology.openstack.org/v1beta1',
    kind: 'Topology',
    metadata: { name, namespace: ns },
    spec: { topologySpreadConstraints: [spread], affinity: affinityFor(affinityValue) },
  });
}

const podSpecOf = async (client: KubeClient, kind: typeof Kinds.Job, ns: string, name: string) =>
  (await getObject<WithPods>(client, kind, ns, name))?.spec.template.spec;

const finalizersOf = async (client: KubeClient, ns: string, name: string) =>
  (await client.get(ExternalKinds.Topology, { name, namespace: ns }))?.metadata.finalizers ?? [];

async function keystoneConf(client: KubeClient, ns: string): Promise<string> {
  const secret = await getObject<SecretData>(client, Kinds.Secret, ns, 'keystone-config-data');
  return Buffer.from(secret?.data?.['keystone.conf'] ?? '', 'base64').toString();
}

describe('KeystoneAPI with infra-operator: Topology, TransportURL, watched Memcached and MariaDB CRs', () => {
  // Before the operator starts: its watches on these kinds begin at once instead of at a recheck.
  beforeAll(async () => {
    await installCrds(adminClient(), INTEROP_CRDS);
  });
  const suite = useOperator({ beforeAll, afterAll });
  let ns = '';
  const FINALIZER = 'openstack.org/keystoneapi-keystone';

  it('topologyRef: the Topology places the Deployment and the Jobs, holds its finalizer, lastAppliedTopology', async () => {
    const client = suite.client;
    ns = await suite.namespace();
    await openstackK8sNamespace(client, ns);
    await createTopology(client, ns, 'keystone-topology', 'a');
    await createKeystone(client, ns, {
      databaseInstance: 'openstack',
      memcachedInstance: 'memcached',
      topologyRef: { name: 'keystone-topology' },
    });
    await mariadbOperatorReports(client, ns);
    const cr = await waitForKeystone(client, ns, 'KeystoneAPI Ready', isReady, { timeoutMs: 120_000 });

    expect(cr.status?.lastAppliedTopology).toEqual({ name: 'keystone-topology', namespace: ns });
    expect(conditionOf(cr, 'TopologyReady')).toMatchObject({
      status: 'True',
      message: 'Topology config create completed',
    });
    expect(await finalizersOf(client, ns, 'keystone-topology')).toContain(FINALIZER);
    const placed = {
      affinity: affinityFor('a'),
      topologySpreadConstraints: [
        { ...spread, labelSelector: { matchLabels: { service: 'keystone', owner: 'keystone' } } },
      ],
    };
    expect(await podSpecOf(client, Kinds.Deployment, ns, 'keystone')).toMatchObject(placed);
    expect(await podSpecOf(client, Kinds.Job, ns, 'keystone-db-sync')).toMatchObject(placed);
    expect(await podSpecOf(client, Kinds.Job, ns, 'keystone-bootstrap')).toMatchObject(placed);
  });

  it('a Memcached or MariaDBDatabase status change reaches the KeystoneAPI within seconds (watched, no timer)', async () => {
    const client = suite.client;
    // Ready and steady: nothing is due to run again before the next key rotation.
    for (const [kind, name, type, condition] of [
      [ExternalKinds.Memcached, 'memcached', 'Ready', 'MemcachedReady'],
      [ExternalKinds.MariaDBDatabase, 'keystone', 'MariaDBDatabaseReady', 'DBReady'],
    ] as const) {
      const started = Date.now();
      await patchStatus(client, kind, ns, name, { conditions: readyConditions(type, false) });
      await waitForKeystoneCondition(client, ns, condition, 'False', 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      await patchStatus(client, kind, ns, name, { conditions: readyConditions(type) });
      await waitForKeystoneCondition(client, ns, condition, 'True', 5_000);
    }
  });

  it('topologyRef changed then removed: the finalizer moves, then leaves; a ref in another namespace is refused', async () => {
    const client = suite.client;
    await createTopology(client, ns, 'keystone-topology-alt', 'b');
    await patchKeystoneSpec(client, ns, { topologyRef: { name: 'keystone-topology-alt' } });
    await waitForKeystone(
      client,
      ns,
      'alt Topology applied',
      (c) => c.status?.lastAppliedTopology?.name === 'keystone-topology-alt',
    );
    expect(await finalizersOf(client, ns, 'keystone-topology')).not.toContain(FINALIZER);
    expect(await finalizersOf(client, ns, 'keystone-topology-alt')).toContain(FINALIZER);
    await waitUntil('Deployment placed by the alt Topology', async () => {
      const spec = await podSpecOf(client, Kinds.Deployment, ns, 'keystone');
      return JSON.stringify(spec?.affinity) === JSON.stringify(affinityFor('b'));
    });

    await patchKeystoneSpec(client, ns, { topologyRef: null });
    const cleared = await waitForKeystone(
      client,
      ns,
      'no Topology applied',
      (c) => c.status?.lastAppliedTopology === undefined && conditionOf(c, 'TopologyReady') === undefined,
    );
    expect(cleared.status?.lastAppliedTopology).toBeUndefined();
    expect(await finalizersOf(client, ns, 'keystone-topology-alt')).not.toContain(FINALIZER);
    await waitUntil('Deployment back to the default anti-affinity', async () => {
      const spec = await podSpecOf(client, Kinds.Deployment, ns, 'keystone');
      return (
        spec?.topologySpreadConstraints === undefined && JSON.stringify(spec?.affinity).includes('"keystone"')
      );
    });

    await patchKeystoneSpec(client, ns, {
      topologyRef: { name: 'keystone-topology', namespace: 'elsewhere' },
    });
    const refused = await waitForKeystoneCondition(client, ns, 'TopologyReady', 'False');
    expect(conditionOf(refused, 'TopologyReady')).toMatchObject({ reason: 'Error', severity: 'Error' });
    expect(conditionOf(refused, 'TopologyReady')?.message).toMatch(
      /Customizing namespace field is not supported/,
    );
    await waitUntil('an InvalidTopologyRef Event', async () =>
      (await client.list<KubeObject & { reason?: string }>(Kinds.Event, { namespace: ns })).items.some(
        (e) => e.reason === 'InvalidTopologyRef',
      ),
    );
    await patchKeystoneSpec(client, ns, { topologyRef: null });
  });

  it('notificationsBus: a TransportURL, RabbitMqTransportURLReady, [oslo_messaging_notifications] and quorum queues', async () => {
    const client = suite.client;
    await patchKeystoneSpec(client, ns, {
      notificationsBus: { cluster: 'rabbitmq', user: 'keystone', vhost: 'ks' },
    });
    const waiting = await waitForKeystoneCondition(client, ns, 'RabbitMqTransportURLReady', 'False');
    expect(conditionOf(waiting, 'RabbitMqTransportURLReady')).toMatchObject({
      reason: 'Requested',
      message: 'RabbitMqTransportURL creation in progress',
    });
    const transport = await client.get<KubeObject & { spec: Record<string, unknown> }>(
      ExternalKinds.TransportURL,
      {
        name: 'keystone-keystone-transport',
        namespace: ns,
      },
    );
    expect(transport?.spec).toEqual({ rabbitmqClusterName: 'rabbitmq', username: 'keystone', vhost: 'ks' });
    expect(transport?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'KeystoneAPI', controller: true });

    // infra-operator's part: the Secret, then the status naming it.
    const url = `rabbit://keystone:pw@rabbitmq.${ns}.svc:5672/ks?ssl=0`;
    await createSecret(client, ns, 'rabbitmq-transport-url-keystone-keystone-transport', {
      transport_url: url,
      quorumqueues: 'true',
    });
    await patchStatus(client, ExternalKinds.TransportURL, ns, 'keystone-keystone-transport', {
      secretName: 'rabbitmq-transport-url-keystone-keystone-transport',
      conditions: readyConditions('Ready'),
    });
    const ready = await waitForKeystoneCondition(client, ns, 'RabbitMqTransportURLReady', 'True');
    expect(conditionOf(ready, 'RabbitMqTransportURLReady')?.message).toBe(
      'RabbitMqTransportURL successfully created',
    );
    expect(ready.status?.transportURLSecret).toBe('rabbitmq-transport-url-keystone-keystone-transport');
    await waitUntil('keystone.conf sends notifications', async () =>
      (await keystoneConf(client, ns)).includes(url),
    );
    const conf = await keystoneConf(client, ns);
    expect(conf).toContain(
      `[oslo_messaging_notifications]\ndriver=messagingv2\ntransport_url=${url}\ntopics = notifications, barbican_notifications\n`,
    );
    expect(conf).toContain(
      '[oslo_messaging_rabbit]\nrabbit_quorum_queue=true\nrabbit_transient_quorum_queue=true\namqp_durable_queues=true\n',
    );

    // The deprecated field alone names the cluster too; neither set renders nothing.
    await patchKeystoneSpec(client, ns, { notificationsBus: null, rabbitMqClusterName: 'legacy' });
    await waitUntil('TransportURL on the legacy cluster', async () => {
      const t = await client.get<KubeObject & { spec: { rabbitmqClusterName?: string } }>(
        ExternalKinds.TransportURL,
        { name: 'keystone-keystone-transport', namespace: ns },
      );
      return t?.spec.rabbitmqClusterName === 'legacy';
    });
    await patchKeystoneSpec(client, ns, { rabbitMqClusterName: '' });
    await waitUntil('keystone.conf without notifications', async () => {
      const text = await keystoneConf(client, ns);
      return text.includes('[database]') && !text.includes('oslo_messaging');
    });
    // The status is written at the end of the pass that wrote keystone.conf: wait for it.
    const after = await waitForKeystone(
      client,
      ns,
      'the status without notifications',
      (c) => c.status?.transportURLSecret === undefined,
    );
    expect(conditionOf(after, 'RabbitMqTransportURLReady')).toBeUndefined();
    expect(after?.status?.transportURLSecret).toBeUndefined();
    await waitUntil('the TransportURL deleted', async () => {
      const t = await client.get(ExternalKinds.TransportURL, {
        name: 'keystone-keystone-transport',
        namespace: ns,
      });
      return t === undefined || t.metadata.deletionTimestamp !== undefined;
    });
  });
});
