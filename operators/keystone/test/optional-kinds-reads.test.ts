import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import type { Reconciler } from '@stackops/lib-common/runtime';
import { installCrds as installCrdsFrom, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { adminClient, installCrds, newNamespace, type Operator, startOperator } from './support/harness.js';
import { createKeystone, isReady, waitForKeystone } from './support/keystone.js';
import { INTEROP_CRDS, mariadbOperatorReports, openstackK8sNamespace } from './support/openstack-k8s.js';

/**
 * Issue 20 / ADR 0027: the Memcached (and Galera) a KeystoneAPI names are read from the operator's
 * watches of those kinds, not fetched from the API server on every pass.
 */
describe('a KeystoneAPI pass reads the Memcached and Galera CRs from the watches', () => {
  const client = adminClient();
  const namespaces: string[] = [];
  /** `get <plural>` the operator sent, per namespace. */
  const gets = new Map<string, string[]>();
  /** Passes of the KeystoneAPI controller, per key. */
  const passes = new Map<string, number>();
  let operator: Operator;

  beforeAll(async () => {
    await installCrds(client);
    await installCrdsFrom(client, INTEROP_CRDS);
    operator = await startOperator({
      beforeRegister: (m) => {
        const get = m.client.get.bind(m.client);
        m.client.get = (kind, ref) => {
          const ns = ref.namespace ?? '';
          gets.set(ns, [...(gets.get(ns) ?? []), `get ${kind.plural}`]);
          return get(kind, ref);
        };
        const controller = m.controller.bind(m);
        m.controller = <T extends KubeObject>(opts?: Parameters<typeof m.controller>[0]) => {
          const builder = controller<T>(opts);
          const reconcile = builder.reconcile.bind(builder);
          builder.reconcile = (fn: Reconciler<T>) =>
            reconcile(async (obj, ctx) => {
              const res = await fn(obj, ctx);
              if (ctx.controller === 'keystoneapi') passes.set(ctx.key, (passes.get(ctx.key) ?? 0) + 1);
              return res;
            });
          return builder;
        };
      },
    });
  });
  afterAll(async () => {
    await operator?.stop();
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  });

  it('a pass of a Ready KeystoneAPI (mariadb-operator mode, Memcached CR) sends no get memcacheds or galeras', async () => {
    const ns = await newNamespace(client);
    namespaces.push(ns);
    await openstackK8sNamespace(client, ns);
    await createKeystone(client, ns, { databaseInstance: 'openstack', memcachedInstance: 'memcached' });
    await mariadbOperatorReports(client, ns);
    await waitForKeystone(client, ns, 'KeystoneAPI Ready', isReady, { timeoutMs: 120_000 });
    await new Promise((r) => setTimeout(r, 2_000));
    const before = gets.get(ns)?.length ?? 0;
    const passesBefore = passes.get(`${ns}/keystone`) ?? 0;
    // A metadata change is a reason for a pass (level-triggered: every step runs again).
    await client.patch(
      KeystoneKinds.KeystoneAPI,
      { namespace: ns, name: 'keystone' },
      { metadata: { annotations: { 'test.stackops.dev/nudge': '1' } } },
      'merge',
    );
    await waitUntil('the nudged pass done', () => (passes.get(`${ns}/keystone`) ?? 0) > passesBefore, {
      timeoutMs: 30_000,
    });
    const during = (gets.get(ns) ?? []).slice(before);
    expect(during.filter((g) => g === 'get memcacheds' || g === 'get galeras')).toEqual([]);
    // The pass did run the Memcached step: its finalizer is still there and the CR stays Ready.
    const cr = await client.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' });
    expect(cr && isReady(cr)).toBe(true);
  });
});
