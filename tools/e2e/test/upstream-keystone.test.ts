import { randomBytes } from 'node:crypto';
import { mariadbPod, openstackNamespaceOnRealNode } from '@stackops/demo/openstack-pods';
import { operatorOnRealNodeValues } from '@stackops/demo/real-node';
import { KeystoneAPIKind, KeystoneEndpointKind, KeystoneServiceKind } from '@stackops/demo/targets';
import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitForDeletion } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadWorkloadImages, podsReady, until } from './openstack/support.js';
import {
  adminClient,
  cleanUp,
  deleteNamespaces,
  helmInstall,
  kubectl,
  type PodShape,
  waitForCondition,
} from './support.js';

/**
 * What upstream's keystone-operator kuttl suite (tools/upstream-suites runs it itself) proves, with
 * upstream's own input: install_yamls' `osp-secret` as that tool writes it today (no
 * KeystoneDatabasePassword) and keystone-operator's sample KeystoneAPI as written (plus
 * `memcachedInstance: ''`: no memcached runs here), on the real node.
 * keystone_resources: KeystoneService and KeystoneEndpoint hold and release upstream's finalizers.
 * change_keystone_config, step 1: the pods `-l service=keystone` are the API pods alone, and their
 * log has DEBUG lines. Scaling, config changes, fernet rotation, TLS and deletion on real pods:
 * openstack/openstack.test.ts.
 */
const ns = 'keystone-kuttl-tests';
const client = adminClient();
const keystone = { kind: KeystoneAPIKind, namespace: ns, name: 'keystone' };
const service = { kind: KeystoneServiceKind, namespace: ns, name: 'placement' };
const endpoint = { kind: KeystoneEndpointKind, namespace: ns, name: 'placement' };
const releases = [{ release: 'keystone-operator', namespace: 'stackops-system' }];

/** install_yamls' osp-secret: the keys its gen-input-kustomize.sh writes, random values. */
const OSP_SECRET_KEYS = [
  'AdminPassword',
  'AodhPassword',
  'BarbicanPassword',
  'BarbicanSimpleCryptoKEK',
  'CeilometerPassword',
  'CloudKittyPassword',
  'DbRootPassword',
  'DatabasePassword',
  'DesignatePassword',
  'PlacementPassword',
  'GlancePassword',
  'NeutronPassword',
  'CinderPassword',
  'IronicPassword',
  'IronicInspectorPassword',
  'KeystoneOIDCClientSecret',
  'KeystoneOIDCCryptoPassphrase',
  'OctaviaPassword',
  'OctaviaHeartbeatKey',
  'NovaPassword',
  'ManilaPassword',
  'MetadataSecret',
  'HeatPassword',
  'HeatAuthEncryptionKey',
  'HeatStackDomainAdminPassword',
  'SwiftPassword',
  'WatcherPassword',
];

/** A keystone.openstack.org/v1beta1 object `name` of `kind` in the suite's namespace. */
const keystoneObject = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'keystone.openstack.org/v1beta1',
  kind,
  metadata: { name, namespace: ns },
  spec,
});

/** keystone-operator's config/samples, as upstream's suite applies them. */
const sampleKeystoneApi = keystoneObject('KeystoneAPI', 'keystone', {
  adminProject: 'admin',
  adminUser: 'admin',
  customServiceConfig: '[DEFAULT]\ndebug = true\n',
  databaseInstance: 'openstack',
  databaseAccount: 'keystone',
  preserveJobs: false,
  region: 'regionOne',
  secret: 'osp-secret',
  resources: { requests: { memory: '500Mi', cpu: '1.0' } },
  // No memcached on this node; upstream's default `memcached` would wait for one (install_yamls
  // deploys it next to the suite). Empty keeps caching off, stackops' extension.
  memcachedInstance: '',
});
const sampleKeystoneService = keystoneObject('KeystoneService', 'placement', {
  serviceUser: 'placement',
  enabled: true,
  serviceDescription: 'Placement service',
  serviceName: 'placement',
  serviceType: 'placement',
  secret: 'osp-secret',
  passwordSelector: 'PlacementPassword',
});
const sampleKeystoneEndpoint = keystoneObject('KeystoneEndpoint', 'placement', {
  serviceName: 'placement',
  endpoints: {
    admin: 'http://placement-admin-openstack.apps-crc.testing',
    internal: 'http://placement-internal-openstack.apps-crc.testing',
    public: 'http://placement-public-openstack.apps-crc.testing',
  },
});

const finalizers = async (ref: { kind: typeof KeystoneAPIKind; namespace: string; name: string }) =>
  (await client.get<KubeObject>(ref.kind, ref))?.metadata.finalizers ?? [];

/** Waits until the object's finalizers are exactly `want` (upstream's asserts compare the list in order). */
const finalizersBecome = (ref: typeof keystone, want: string[]) =>
  until(`${ref.kind.kind} ${ref.name} finalizers ${want.join(',')}`, async () => {
    const got = await finalizers(ref);
    return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
  });

beforeAll(async () => {
  const images = await loadWorkloadImages(inject('e2eCluster'));
  // Every pod of the namespace on the real node; the operator selects it and tolerates its taint.
  await openstackNamespaceOnRealNode(client, ns);
  await client.apply(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'osp-secret',
      namespace: ns,
      labels: { 'created-by': 'install_yamls', type: 'osp-secret' },
    },
    stringData: Object.fromEntries(OSP_SECRET_KEYS.map((k) => [k, randomBytes(16).toString('hex')])),
  } as KubeObject);
  await client.apply(Kinds.Service, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'openstack', namespace: ns },
    spec: { ports: [{ name: 'mysql', port: 3306 }], selector: { app: 'mariadb' } },
  } as KubeObject);
  await client.apply(Kinds.Pod, mariadbPod(images.mariadb, ns));
  await helmInstall('keystone-operator', 'keystone-operator', 'stackops-system', {
    ...operatorOnRealNodeValues,
    relatedImages: { keystoneAPI: images.keystone, mariadb: images.mariadb },
  });
  await podsReady(client, ns, 'app=mariadb', 1, 120_000);
});

afterAll(async () => {
  await cleanUp(client, [endpoint, service, keystone], releases);
  await deleteNamespaces(client, [ns]);
  client.close();
});

describe("upstream's keystone suite, its behaviours with its own input", () => {
  it("the sample KeystoneAPI with install_yamls' osp-secret becomes Ready; `-l service=keystone` finds the API pod alone, logging DEBUG", async () => {
    await client.apply(KeystoneAPIKind, sampleKeystoneApi as KubeObject);
    await waitForCondition(client, KeystoneAPIKind, keystone, 'Ready', 'True', 420_000);
    expect(await finalizers(keystone)).toEqual(['openstack.org/keystoneapi']);
    // What upstream's check_debug_in_keystone_pod_logs.sh does: `oc logs $(oc get pods -l service=keystone -o name)`.
    const pods = (
      await client.list<PodShape>(Kinds.Pod, { namespace: ns, labelSelector: 'service=keystone' })
    ).items;
    expect(pods.map((p) => p.metadata.ownerReferences?.[0]?.kind)).toEqual(['ReplicaSet']);
    const name = pods[0]?.metadata.name ?? '';
    const logs = await until('a DEBUG line in the Keystone log', async () => {
      const out = await kubectl(['logs', '-n', ns, name]);
      return / DEBUG /.test(out) ? out : undefined;
    });
    expect(logs).toMatch(/ DEBUG /);
  });

  it('KeystoneService and KeystoneEndpoint hold upstream finalizers on their parents and release them when deleted', async () => {
    await client.apply(KeystoneServiceKind, sampleKeystoneService as KubeObject);
    await waitForCondition(client, KeystoneServiceKind, service, 'Ready', 'True');
    await finalizersBecome(keystone, [
      'openstack.org/keystoneapi',
      'openstack.org/keystoneservice-placement',
    ]);
    expect(await finalizers(service)).toEqual(['openstack.org/keystoneservice']);

    await client.apply(KeystoneEndpointKind, sampleKeystoneEndpoint as KubeObject);
    await waitForCondition(client, KeystoneEndpointKind, endpoint, 'Ready', 'True');
    await finalizersBecome(keystone, [
      'openstack.org/keystoneapi',
      'openstack.org/keystoneservice-placement',
      'openstack.org/keystoneendpoint-placement',
    ]);
    await finalizersBecome(service, [
      'openstack.org/keystoneservice',
      'openstack.org/keystoneendpoint-placement',
    ]);
    expect(await finalizers(endpoint)).toEqual(['openstack.org/keystoneendpoint']);

    await client.delete(KeystoneEndpointKind, endpoint);
    await waitForDeletion(client, KeystoneEndpointKind, endpoint, { timeoutMs: 120_000 });
    expect(await finalizers(keystone)).toEqual([
      'openstack.org/keystoneapi',
      'openstack.org/keystoneservice-placement',
    ]);
    expect(await finalizers(service)).toEqual(['openstack.org/keystoneservice']);

    await client.delete(KeystoneServiceKind, service);
    await waitForDeletion(client, KeystoneServiceKind, service, { timeoutMs: 120_000 });
    expect(await finalizers(keystone)).toEqual(['openstack.org/keystoneapi']);
  });
});
