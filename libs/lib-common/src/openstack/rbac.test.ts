import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { Conditions } from '../conditions/conditions.js';
import { controllerReference } from '../objects/owner.js';
import { ReconcileError } from '../runtime/error-policy.js';
import { FakeKubeClient } from '../testing/fake.js';
import { buildRbac, reconcileRbac, SERVICE_POD_RULES } from './rbac.js';

describe('buildRbac', () => {
  it('names the Role and RoleBinding after the ServiceAccount and binds them', () => {
    const { serviceAccount, role, roleBinding } = buildRbac({
      name: 'keystone-keystone',
      namespace: 'openstack',
      rules: SERVICE_POD_RULES,
      labels: { service: 'keystone' },
    });
    expect(serviceAccount).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'keystone-keystone', namespace: 'openstack', labels: { service: 'keystone' } },
    });
    expect(role.metadata.name).toBe('keystone-keystone-role');
    expect(role['rules']).toEqual(SERVICE_POD_RULES);
    expect(roleBinding).toMatchObject({
      metadata: { name: 'keystone-keystone-rolebinding', namespace: 'openstack' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'keystone-keystone-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'keystone-keystone', namespace: 'openstack' }],
    });
  });
});

describe('reconcileRbac', () => {
  const ns = 'openstack';
  const cr = (name: string, uid: string): KubeObject => ({
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name, namespace: ns, uid },
  });
  const owner = cr('keystone', 'uid-1');
  const input = { name: 'keystone-keystone', namespace: ns, rules: SERVICE_POD_RULES };
  const run = (fake: FakeKubeClient, conditions = new Conditions()) =>
    reconcileRbac(fake, owner, conditions, input).then(
      () => ({ conditions, error: undefined }),
      (error: unknown) => ({ conditions, error }),
    );

  it('creates the three objects owned by the CR and marks them ready', async () => {
    const fake = new FakeKubeClient();
    const { conditions, error } = await run(fake);
    expect(error).toBeUndefined();
    for (const [kind, name] of [
      [Kinds.ServiceAccount, 'keystone-keystone'],
      [Kinds.Role, 'keystone-keystone-role'],
      [Kinds.RoleBinding, 'keystone-keystone-rolebinding'],
    ] as const)
      expect(fake.peek(kind, { namespace: ns, name })?.metadata.ownerReferences).toEqual([
        controllerReference(owner),
      ]);
    expect(
      ['ServiceAccountReady', 'RoleReady', 'RoleBindingReady'].map((t) => conditions.get(t)?.status),
    ).toEqual(['True', 'True', 'True']);
  });

  it('takes over what the same CR already controls (as the Go operator leaves it)', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Role, {
      metadata: {
        name: 'keystone-keystone-role',
        namespace: ns,
        ownerReferences: [controllerReference(owner)],
      },
      rules: [],
    } as KubeObject);
    const { error } = await run(fake);
    expect(error).toBeUndefined();
    expect(
      fake.peek<KubeObject & { rules?: unknown }>(Kinds.Role, {
        namespace: ns,
        name: 'keystone-keystone-role',
      })?.rules,
    ).toEqual(SERVICE_POD_RULES);
  });

  it.each([
    ['an admin (no controller)', [], 'it has no controller', 'Error'],
    [
      'another KeystoneAPI',
      [controllerReference(cr('other', 'uid-2'))],
      'it is controlled by KeystoneAPI other',
      'Error',
    ],
    [
      'a deleted KeystoneAPI of the same name',
      [controllerReference(cr('keystone', 'uid-0'))],
      'it belongs to a deleted KeystoneAPI of the same name, until garbage collection removes it',
      'Warning',
    ],
  ])(
    'refuses a Role of the same name made by %s: condition, error, nothing written',
    async (_, refs, why, severity) => {
      const fake = new FakeKubeClient();
      const adminRules = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
      fake.seed(Kinds.Role, {
        metadata: { name: 'keystone-keystone-role', namespace: ns, ownerReferences: refs },
        rules: adminRules,
      } as KubeObject);
      const writes = fake.writes();
      const { conditions, error } = await run(fake);
      expect(error).toBeInstanceOf(ReconcileError);
      expect(error).toMatchObject({ reason: 'NotOwned', severity });
      expect(conditions.get('RoleReady')).toMatchObject({
        status: 'False',
        reason: 'Error',
        severity,
        message: `Role ${ns}/keystone-keystone-role exists and is not this KeystoneAPI's (${why}): not taken over; rename or remove it`,
      });
      expect((error as Error).message).toBe(conditions.get('RoleReady')?.message);
      expect(fake.writes()).toBe(writes);
      expect(fake.peek(Kinds.ServiceAccount, { namespace: ns, name: 'keystone-keystone' })).toBeUndefined();
      expect(
        fake.peek<KubeObject & { rules?: unknown }>(Kinds.Role, {
          namespace: ns,
          name: 'keystone-keystone-role',
        })?.rules,
      ).toEqual(adminRules);
    },
  );
});
