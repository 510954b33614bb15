import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds, type KubeObject } from '../src/client/index.js';
import { Conditions } from '../src/conditions/index.js';
import { applyOwned } from '../src/objects/index.js';
import {
  buildConfigSecret,
  buildDeployment,
  buildEndpointService,
  httpProbe,
  metalLBAnnotations,
  reconcileRbac,
  SERVICE_POD_RULES,
  serviceLabels,
} from '../src/openstack/index.js';
import { waitUntil } from '../src/testing/wait.js';
import { createOwner, FIELD_MANAGER, testClient, useResourcesNamespace } from './resources-support.js';

const file = useResourcesNamespace({ beforeAll, afterAll, beforeEach, afterEach }, 'res-apply');

const configMap = (
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubeObject => ({
  metadata: { name, namespace: file.ns, ...(labels ? { labels } : {}) },
  data,
});

describe('applyOwned', () => {
  it('creates the object owned by the CR, applied with the operator field manager', async () => {
    const { object, applied } = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('created', { a: '1' }),
    );
    expect(applied).toBe(true);
    expect(object.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'owner',
        uid: file.owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const managers =
      (object.metadata as { managedFields?: { manager: string; operation: string }[] }).managedFields ?? [];
    expect(managers).toContainEqual(expect.objectContaining({ manager: FIELD_MANAGER, operation: 'Apply' }));
  });

  it('sends no write when nothing changed (cached object) and only a GET when it must read', async () => {
    const first = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('noop', { a: '1' }, { l: 'x' }),
    );
    const before = file.client.requests.snapshot();
    const writes = file.client.requests.writes();
    const gets = file.client.requests.count({ verb: 'get' });

    const cached = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('noop', { a: '1' }, { l: 'x' }),
      {
        current: first.object,
      },
    );
    const read = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('noop', { a: '1' }, { l: 'x' }),
    );

    expect(cached.applied).toBe(false);
    expect(read.applied).toBe(false);
    expect(
      file.client.requests.writes() - writes,
      JSON.stringify({ before, after: file.client.requests.snapshot() }),
    ).toBe(0);
    expect(file.client.requests.count({ verb: 'get' }) - gets).toBe(1);
  });

  it('changes a field, and removes a field it no longer sets', async () => {
    await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('edit', { a: '1', b: '2' }, { keep: 'k', drop: 'd' }),
    );
    const { object, applied } = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('edit', { a: '9' }, { keep: 'k' }),
    );
    expect(applied).toBe(true);
    expect(object['data']).toEqual({ a: '9' });
    expect(object.metadata.labels).toEqual({ keep: 'k' });
  });

  it('puts back a field someone else changed, and leaves fields it does not own alone', async () => {
    const first = await applyOwned(file.client, file.owner, Kinds.ConfigMap, configMap('drift', { a: '1' }));
    const intruder = testClient('someone-else');
    const edited = await intruder.patch<KubeObject>(
      Kinds.ConfigMap,
      { name: 'drift', namespace: file.ns },
      { data: { a: 'changed', extra: 'theirs' } },
      'merge',
    );
    intruder.close();
    expect(edited.metadata.resourceVersion).not.toBe(first.object.metadata.resourceVersion);

    const again = await applyOwned(file.client, file.owner, Kinds.ConfigMap, configMap('drift', { a: '1' }), {
      current: edited,
    });
    expect(again.applied).toBe(true);
    expect(again.object['data']).toEqual({ a: '1', extra: 'theirs' });
  });

  it('re-creates an owned object that was deleted', async () => {
    const first = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('deleted', { a: '1' }),
    );
    await file.client.delete(Kinds.ConfigMap, { name: 'deleted', namespace: file.ns });
    const again = await applyOwned(
      file.client,
      file.owner,
      Kinds.ConfigMap,
      configMap('deleted', { a: '1' }),
      {
        current: null,
      },
    );
    expect(again.applied).toBe(true);
    expect(again.object.metadata.uid).not.toBe(first.object.metadata.uid);
  });

  it('built objects survive server defaulting: the second apply of each is skipped', async () => {
    const labels = serviceLabels('keystone', 'keystone');
    const objects: [typeof Kinds.Deployment, KubeObject][] = [
      [
        Kinds.Deployment,
        buildDeployment({
          name: 'keystone',
          namespace: file.ns,
          selector: labels,
          replicas: 1,
          configHash: 'h1',
          nodeSelector: {},
          podAnnotations: { 'k8s.v1.cni.cncf.io/networks': '[]' },
          containers: [
            {
              name: 'keystone-api',
              image: 'registry.invalid/keystone:1',
              ports: [{ containerPort: 5000, name: 'api' }],
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
              readinessProbe: httpProbe({ path: '/v3', port: 5000 }),
              securityContext: { runAsUser: 42425, capabilities: { drop: ['MKNOD'] } },
            },
          ],
        }),
      ],
      [
        Kinds.Service,
        buildEndpointService({
          name: 'keystone',
          endpoint: 'internal',
          namespace: file.ns,
          labels,
          selector: labels,
          port: 5000,
          override: { metadata: { annotations: metalLBAnnotations({ addressPool: 'internalapi' }) } },
        }),
      ],
      [
        Kinds.Secret,
        buildConfigSecret({
          name: 'keystone-config-data',
          namespace: file.ns,
          data: { 'keystone.conf': '[DEFAULT]\n' },
        }),
      ],
    ];
    for (const [kind, obj] of objects) {
      const first = await applyOwned(file.client, file.owner, kind, obj);
      expect(first.applied).toBe(true);
      const writes = file.client.requests.writes();
      const second = await applyOwned(file.client, file.owner, kind, obj, { current: first.object });
      expect(second.applied, `${obj.kind} was re-applied`).toBe(false);
      expect(file.client.requests.writes() - writes).toBe(0);
    }
  });

  it('reconcileRbac makes the ServiceAccount, Role and RoleBinding, sets their conditions, and is a no-op after', async () => {
    const conds = new Conditions();
    const input = { name: 'keystone-keystone', namespace: file.ns, rules: SERVICE_POD_RULES };
    await reconcileRbac(file.client, file.owner, conds, input);
    expect(conds.list().map((c) => [c.type, c.status, c.message])).toEqual([
      ['RoleBindingReady', 'True', 'RoleBinding created'],
      ['RoleReady', 'True', 'Role created'],
      ['ServiceAccountReady', 'True', 'ServiceAccount created'],
    ]);
    const writes = file.client.requests.writes();
    await reconcileRbac(file.client, file.owner, new Conditions(), input);
    expect(file.client.requests.writes() - writes).toBe(0);
  });

  it('owned objects go away with their file.owner (garbage collection)', async () => {
    const gcOwner = await createOwner(file.client, file.ns, 'gc-owner');
    await applyOwned(file.client, gcOwner, Kinds.ConfigMap, configMap('gc-child', { a: '1' }));
    await file.client.delete(Kinds.ConfigMap, { name: 'gc-owner', namespace: file.ns });
    await waitUntil('the owned ConfigMap to be garbage-collected', async () =>
      (await file.client.get(Kinds.ConfigMap, { name: 'gc-child', namespace: file.ns })) === undefined
        ? true
        : undefined,
    );
  });
});
