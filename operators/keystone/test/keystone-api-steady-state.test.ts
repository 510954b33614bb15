import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { keystoneApiReconciler } from '../src/controllers/keystone-api/keystone-api-reconciler.js';
import { countingWrites, getObject, reconcileWith, TEST_DEFAULTS, useOperator } from './support/harness.js';
import {
  createKeystone,
  isReady,
  patchKeystoneSpec,
  preparedNamespace,
  readyKeystone,
  waitForKeystoneReady,
} from './support/keystone.js';

type Templated = KubeObject & { spec: { template?: { spec: { nodeSelector?: Record<string, string> } } } };
type Cron = KubeObject & {
  spec: { jobTemplate: { spec: { template: { spec: { nodeSelector?: Record<string, string> } } } } };
};

describe('KeystoneAPI steady state', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('a reconcile with unchanged inputs writes nothing and comes back when the next rotation is due', async () => {
    const { client, ns } = await readyKeystone(suite, { fernetRotationDays: 2 });
    const cache = suite.operator.manager.cache;
    // The reconciler reads from the operator's cache: let it catch up with the last write.
    await waitUntil('the cache holds the live, Ready KeystoneAPI', async () => {
      const live = await getObject<KeystoneAPI>(client, KeystoneKinds.KeystoneAPI, ns, 'keystone');
      const cached = cache.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' });
      return cached && isReady(cached) && cached.metadata.resourceVersion === live?.metadata.resourceVersion;
    });
    const counting = countingWrites(client);
    const cr = cache.get<KeystoneAPI>(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' });
    // The controller's own reader: its Secrets by label, the input Secret by name.
    const { result, events } = await reconcileWith(keystoneApiReconciler(TEST_DEFAULTS), cr!, {
      client: counting.client,
      cache: suite.operator.readerOf('keystoneapi'),
    });
    expect(counting.writes).toEqual([]);
    expect(events).toEqual([]);
    const twoDays = 2 * 24 * 3600 * 1000;
    expect(result.requeueAfterMs).toBeGreaterThan(twoDays - 5 * 60_000);
    expect(result.requeueAfterMs).toBeLessThanOrEqual(twoDays);
  });

  it('nodeSelector reaches the Deployment, the Jobs and the CronJob; changing and clearing it follows', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    const selectorOf = async () => ({
      deployment: (await getObject<Templated>(client, Kinds.Deployment, ns, 'keystone'))?.spec.template?.spec
        .nodeSelector,
      dbSync: (await getObject<Templated>(client, Kinds.Job, ns, 'keystone-db-sync'))?.spec.template?.spec
        .nodeSelector,
      cron: (await getObject<Cron>(client, Kinds.CronJob, ns, 'keystone-cron'))?.spec.jobTemplate.spec
        .template.spec.nodeSelector,
    });
    await createKeystone(client, ns, { nodeSelector: { type: 'kwok' } });
    await waitForKeystoneReady(client, ns);
    expect(await selectorOf()).toEqual({
      deployment: { type: 'kwok' },
      dbSync: { type: 'kwok' },
      cron: { type: 'kwok' },
    });

    // a merge patch: drop the old key, add the new one
    await patchKeystoneSpec(client, ns, { nodeSelector: { type: null, 'kubernetes.io/os': 'linux' } });
    const linux = { 'kubernetes.io/os': 'linux' };
    await waitUntil('the new nodeSelector everywhere', async () => {
      const s = await selectorOf();
      return JSON.stringify(s) === JSON.stringify({ deployment: linux, dbSync: linux, cron: linux })
        ? s
        : undefined;
    });
    await waitForKeystoneReady(client, ns);

    await patchKeystoneSpec(client, ns, { nodeSelector: null });
    await waitUntil('no nodeSelector', async () => {
      const s = await selectorOf();
      return s.deployment === undefined && s.cron === undefined && s.dbSync === undefined ? s : undefined;
    });
  });
});
