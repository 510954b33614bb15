import { describe, expect, it } from 'vitest';
import { buildRbac, SERVICE_POD_RULES } from './rbac.js';

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
