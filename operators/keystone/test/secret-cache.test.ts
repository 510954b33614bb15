import { Kinds, type KubeObject, type ListOptions, type WatchOptions } from '@stackops/lib-common/client';
import { createSecret, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { adminClient, installCrds, newNamespace, type Operator, startOperator } from './support/harness.js';
import { createKeystone, preparedNamespace, waitForKeystoneReady } from './support/keystone.js';
import { placementEndpoint, placementService } from './support/keystone-server/operator.js';

/** The label on every Secret a KeystoneAPI creates. */
const OWN = 'keystone.openstack.org/uid';
const UNRELATED = 50;

describe('the Secrets keystone-operator reads (issues 14 and 15)', () => {
  const client = adminClient();
  const namespaces: string[] = [];
  /** Every Secret list and watch the operator sent: what it selected, and where. */
  const secretRequests: { verb: 'list' | 'watch'; opts: ListOptions | WatchOptions }[] = [];
  let operator: Operator;

  beforeAll(async () => {
    await installCrds(client);
    // The whole operator, as main.ts wires it, its client observed from the first request on.
    operator = await startOperator({
      withRegistration: true,
      beforeRegister: (m) => {
        const list = m.client.list.bind(m.client);
        const watch = m.client.watch.bind(m.client);
        m.client.list = (kind, opts = {}) => {
          if (kind.kind === 'Secret') secretRequests.push({ verb: 'list', opts });
          return list(kind, opts);
        };
        m.client.watch = (kind, opts, onEvent) => {
          if (kind.kind === 'Secret') secretRequests.push({ verb: 'watch', opts });
          return watch(kind, opts, onEvent);
        };
      },
    });
  });
  afterAll(async () => {
    await operator?.stop();
    for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
  });

  it(`caches only its own Secrets and watches the named ones by name; ${UNRELATED} other Secrets are never listed, watched or cached`, async () => {
    const ns = await preparedNamespace({
      client,
      namespace: async () => {
        const name = await newNamespace(client);
        namespaces.push(name);
        return name;
      },
    });
    for (let i = 0; i < UNRELATED; i++)
      await createSecret(
        client,
        ns,
        `unrelated-${i}`,
        { password: `not-for-keystone-${i}` },
        { unrelated: 'yes' },
      );
    await createKeystone(client, ns);
    await waitForKeystoneReady(client, ns);
    // Its dependants read the KeystoneAPI's admin Secret and their own password Secret (both osp-secret).
    await client.create(KeystoneKinds.KeystoneService, placementService(ns));
    await client.create(KeystoneKinds.KeystoneEndpoint, placementEndpoint(ns));
    // Other tests' namespaces may still be going away on this cluster: look at this one only. The
    // shared cache never holds osp-secret (unlabelled), so a controller's reader has it only by name.
    const controllers = ['keystoneapi', 'keystoneservice', 'keystoneendpoint'];
    const readsOspSecret = (controller: string) => {
      try {
        return operator.readerOf(controller).get(Kinds.Secret, { namespace: ns, name: 'osp-secret' });
      } catch {
        return undefined; // it has not reconciled yet
      }
    };
    await waitUntil('each controller watches osp-secret by name', async () =>
      controllers.every((c) => readsOspSecret(c) !== undefined) ? true : undefined,
    );
    for (const c of controllers)
      expect(operator.manager.controllerNamed(c)?.namedWatchCount).toBeGreaterThanOrEqual(1);

    // Every Secret list/watch selects its own label, or one name in one namespace (the cluster may
    // hold other tests' namespaces); none asks for every Secret.
    expect(secretRequests.length).toBeGreaterThan(0);
    const byName = secretRequests.filter((r) => r.opts.labelSelector !== OWN);
    for (const r of byName) {
      expect(r.opts.fieldSelector).toMatch(/^metadata\.name=[^,]+$/);
      expect(r.opts.namespace).toBeTruthy();
    }
    expect(byName.length).toBeLessThan(secretRequests.length);
    const inNamespace = new Set(
      byName.filter((r) => r.opts.namespace === ns).map((r) => r.opts.fieldSelector),
    );
    expect([...inNamespace]).toEqual(['metadata.name=osp-secret']);

    // The shared cache holds exactly the Secrets the KeystoneAPI created (all labelled), nothing else.
    const namesOf = (secrets: KubeObject[]) => secrets.map((s) => s.metadata.name).sort();
    const own = (await client.list(Kinds.Secret, { namespace: ns, labelSelector: OWN })).items;
    expect(own.length).toBeGreaterThan(0);
    const cached = await waitUntil('the cache holds the labelled Secrets', async () => {
      const list = operator.manager.cache.list<KubeObject>(Kinds.Secret, { namespace: ns });
      return JSON.stringify(namesOf(list)) === JSON.stringify(namesOf(own)) ? list : undefined;
    });
    expect(cached.filter((s) => s.metadata.labels?.['unrelated'] === 'yes')).toEqual([]);
    expect(cached.find((s) => s.metadata.name === 'osp-secret')).toBeUndefined();
  });
});
