import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { FakeKubeClient, startFakeManager, waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from '../api/kinds.js';
import { DEFAULT_IMAGES } from '../config/images.js';
import { RENDERED_KINDS } from '../resources/kinds.js';
import { MANAGED_SELECTOR } from '../resources/labels.js';
import { registerNetworkAddonsConfigController } from './network-addons-config-controller.js';

const NS = 'cnao';
type DaemonSet = KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } };

/** The registration on a real Manager over lib-common's fake API server (no cert-manager served). */
async function start() {
  const fake = new FakeKubeClient({
    served: [...Object.values(Kinds), ...RENDERED_KINDS, NetworkAddonsConfigKind],
  });
  fake.seed(Kinds.ConfigMap, { metadata: { name: 'not-ours', namespace: NS }, data: {} });
  const manager = await startFakeManager(fake, (m) =>
    registerNetworkAddonsConfigController(m, {
      env: { operatorNamespace: NS, operandNamespace: NS, operatorVersion: '1.0.0', images: DEFAULT_IMAGES },
      random: (n) => new Uint8Array(n).fill(1),
    }),
  );
  return { fake, manager };
}

describe('NetworkAddonsConfig controller registration', () => {
  it('deploys a new NetworkAddonsConfig, caches only managed objects, and puts back an edited DaemonSet', async () => {
    const { fake, manager } = await start();
    try {
      fake.seed(NetworkAddonsConfigKind, { metadata: { name: 'cluster' }, spec: { multus: {} } });
      const ref = { namespace: NS, name: 'multus' };
      const deployed = await waitUntil(
        'the multus DaemonSet',
        () => fake.peek<DaemonSet>(Kinds.DaemonSet, ref),
        {
          timeoutMs: 5000,
          intervalMs: 10,
        },
      );
      const image = deployed.spec.template.spec.containers[0]?.image;
      // The cache holds what the operator labels as its own, not every ConfigMap of the cluster.
      expect(manager.cache.get(Kinds.ConfigMap, { namespace: NS, name: 'not-ours' })).toBeUndefined();
      expect(manager.cache.list<KubeObject>(Kinds.ConfigMap).length).toBeGreaterThan(0);
      for (const o of manager.cache.list<KubeObject>(Kinds.ConfigMap))
        expect(o.metadata.labels?.['app.kubernetes.io/managed-by'], MANAGED_SELECTOR).toBe('cnao-operator');

      await fake.patch(
        Kinds.DaemonSet,
        ref,
        { spec: { template: { spec: { containers: [{ name: 'kube-multus', image: 'evil/multus' }] } } } },
        'merge',
      );
      await waitUntil(
        'the DaemonSet put back',
        () => fake.peek<DaemonSet>(Kinds.DaemonSet, ref)?.spec.template.spec.containers[0]?.image === image,
        { timeoutMs: 5000, intervalMs: 10 },
      );
      const cr = fake.peek<NetworkAddonsConfig>(NetworkAddonsConfigKind, { name: 'cluster' });
      expect(cr?.status?.conditions?.find((c) => c.type === 'Progressing')?.status).toBe('True');
    } finally {
      await manager.stop();
    }
  });

  it("watches cert-manager's kinds as optional: absent, they neither hold back the caches nor cost a list", async () => {
    const { fake, manager } = await start();
    try {
      expect(fake.calls.filter((c) => c.kind === 'Certificate' || c.kind === 'Issuer')).toEqual([]);
      const controller = manager.controllerNamed('networkaddonsconfig');
      expect(controller?.kinds.map((k) => k.kind)).not.toContain('Certificate');
      expect(controller?.kinds.map((k) => k.kind)).toContain('DaemonSet');
      expect(controller?.optionalKinds.map((o) => `${o.kind.kind} ${o.watching}`)).toEqual([
        'Certificate false',
        'Issuer false',
      ]);
    } finally {
      await manager.stop();
    }
  });
});
