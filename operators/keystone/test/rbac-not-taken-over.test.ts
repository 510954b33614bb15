import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObject, useOperator } from './support/harness.js';
import {
  conditionOf,
  createKeystone,
  preparedNamespace,
  waitForKeystone,
  waitForKeystoneReady,
} from './support/keystone.js';

type Role = KubeObject & { rules?: unknown[] };
type EventObject = KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } };

const ADMIN_RULES = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }];

describe('an admin Role with the name of a KeystoneAPI Role', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('is not taken over: RoleReady False (Error), a NotOwned Event, the Role as it was; once removed, the KeystoneAPI goes on', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    // What someone with namespace edit rights cannot write (edit excludes Roles), made by an admin.
    await client.create<Role>(Kinds.Role, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'keystone-keystone-role', namespace: ns },
      rules: ADMIN_RULES,
    });
    await createKeystone(client, ns);
    const message = `Role ${ns}/keystone-keystone-role exists and is not this KeystoneAPI's (it has no controller): not taken over; rename or remove it`;
    const refused = await waitForKeystone(
      client,
      ns,
      'RoleReady refused',
      (cr) => conditionOf(cr, 'RoleReady')?.message === message,
    );
    expect(conditionOf(refused, 'RoleReady')).toMatchObject({ status: 'False', severity: 'Error' });
    expect(conditionOf(refused, 'Ready')).toMatchObject({ status: 'False', severity: 'Error' });
    await waitUntil('the NotOwned Event', async () =>
      (await client.list<EventObject>(Kinds.Event, { namespace: ns })).items.some(
        (e) => e.reason === 'NotOwned' && e.involvedObject?.name === 'keystone' && e.message === message,
      )
        ? true
        : undefined,
    );
    const role = await getObject<Role>(client, Kinds.Role, ns, 'keystone-keystone-role');
    expect(role?.rules).toEqual(ADMIN_RULES);
    expect(role?.metadata.ownerReferences ?? []).toEqual([]);
    // Nothing of the three was written: the ServiceAccount and RoleBinding are not there either.
    expect(await getObject(client, Kinds.ServiceAccount, ns, 'keystone-keystone')).toBeUndefined();
    expect(await getObject(client, Kinds.RoleBinding, ns, 'keystone-keystone-rolebinding')).toBeUndefined();

    await client.delete(Kinds.Role, { namespace: ns, name: 'keystone-keystone-role' });
    const ready = await waitForKeystoneReady(client, ns, 120_000);
    expect(conditionOf(ready, 'RoleReady')?.status).toBe('True');
    const ours = await getObject<Role>(client, Kinds.Role, ns, 'keystone-keystone-role');
    expect(ours?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'KeystoneAPI',
      name: 'keystone',
      controller: true,
    });
  });
});
