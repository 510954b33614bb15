import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { FakeKubeClient, startFakeManager } from './fake.js';
import { reconcileCount, settledReconcileCount } from './reconciles.js';
import { waitUntil } from './wait.js';

const fast = { timeoutMs: 2_000, intervalMs: 5 };

describe('reconcileCount / settledReconcileCount', () => {
  it('count one controller’s reconciles and settle once it stops moving', async () => {
    const fake = new FakeKubeClient();
    const manager = await startFakeManager(fake, (m) => {
      m.controller<KubeObject>({ for: Kinds.Secret, name: 'secrets' }).reconcile(async () => undefined);
      m.controller<KubeObject>({ for: Kinds.ConfigMap, name: 'configmaps' }).reconcile(async () => undefined);
    });
    /** Waits until controller `name` has reconciled `n` times. */
    const reconciled = (name: string, n: number) =>
      waitUntil(
        `${name} reconciled ${n} times`,
        async () => (await reconcileCount(manager, name)) === n,
        fast,
      );
    try {
      expect(await reconcileCount(manager, 'secrets')).toBe(0);
      await fake.create(Kinds.Secret, { metadata: { name: 'a', namespace: 'ns' } });
      await fake.create(Kinds.Secret, { metadata: { name: 'b', namespace: 'ns' } });
      await reconciled('secrets', 2);
      expect(await settledReconcileCount(manager, 'secrets', { quietMs: 50 })).toBe(2);
      expect(await reconcileCount(manager, 'configmaps')).toBe(0);
      // a ConfigMap does not wake the Secret controller
      await fake.create(Kinds.ConfigMap, { metadata: { name: 'c', namespace: 'ns' } });
      await reconciled('configmaps', 1);
      expect(await settledReconcileCount(manager, 'secrets', { quietMs: 50 })).toBe(2);
    } finally {
      await manager.stop();
    }
  });
});
