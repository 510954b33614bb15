import { connect } from 'node:tls';
import { Kinds } from '@stackops/lib-common/client';
import { FakeKubeClient, startFakeManager, waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from './api/kinds.js';
import { DEFAULT_IMAGES } from './config/images.js';
import { registerNetworkAddonsConfigController } from './controllers/network-addons-config-controller.js';
import { cnaoCrReady } from './monitoring.js';
import { RENDERED_KINDS } from './resources/kinds.js';

const NS = 'cnao';

/** The protocol a client capped at `maxVersion` gets from the metrics port, or "refused". */
function handshake(port: number, maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, maxVersion }, () => {
      resolve(socket.getProtocol() ?? 'none');
      socket.end();
    });
    socket.on('error', () => resolve('refused'));
  });
}

const sample = (name: string, line: string) => new RegExp(`^${name} ${line}$`, 'm');

describe('cnaoCrReady', () => {
  it('is 1 only while the Available condition is True', () => {
    const withAvailable = (status: string) =>
      ({
        metadata: { name: 'cluster' },
        status: { conditions: [{ type: 'Available', status }] },
      }) as unknown as NetworkAddonsConfig;
    expect([
      cnaoCrReady(withAvailable('True')),
      cnaoCrReady(withAvailable('False')),
      cnaoCrReady(undefined),
    ]).toEqual([1, 0, 0]);
  });
});

describe("network-addons monitoring: upstream's gauges and the tlsSecurityProfile of secure metrics", () => {
  it('exports kubevirt_cnao_cr_ready / _kubemacpool_deployed from the CR, and serves metrics with the profile the CR names', async () => {
    const fake = new FakeKubeClient({
      served: [...Object.values(Kinds), ...RENDERED_KINDS, NetworkAddonsConfigKind],
    });
    const manager = await startFakeManager(
      fake,
      (m) =>
        registerNetworkAddonsConfigController(m, {
          env: {
            operatorNamespace: NS,
            operandNamespace: NS,
            operatorVersion: '1.0.0',
            images: DEFAULT_IMAGES,
          },
          random: (n) => new Uint8Array(n).fill(1),
        }),
      { metricsSecure: true, metricsPort: 0, metricsTls: { minVersion: 'VersionTLS12' } },
    );
    try {
      const port = manager.address('metrics')?.port ?? 0;
      // No NetworkAddonsConfig yet: the operator's own minimum (TLS 1.2 here) and both gauges 0.
      expect(await handshake(port, 'TLSv1.2')).toBe('TLSv1.2');
      let text = await manager.registry.metrics();
      expect(text).toMatch(sample('kubevirt_cnao_cr_ready', '0'));
      expect(text).toMatch(sample('kubevirt_cnao_cr_kubemacpool_deployed', '0'));

      // No profile means Modern, as upstream: TLS 1.3 only.
      fake.seed(NetworkAddonsConfigKind, { metadata: { name: 'cluster' }, spec: { kubeMacPool: {} } });
      await waitUntil('Modern applied', async () => (await handshake(port, 'TLSv1.2')) === 'refused', {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(await handshake(port, 'TLSv1.3')).toBe('TLSv1.3');
      text = await manager.registry.metrics();
      expect(text).toMatch(sample('kubevirt_cnao_cr_kubemacpool_deployed', '1'));

      // Intermediate lets TLS 1.2 back in.
      await fake.patch(
        NetworkAddonsConfigKind,
        { name: 'cluster' },
        { spec: { tlsSecurityProfile: { type: 'Intermediate', intermediate: {} } } },
        'merge',
      );
      await waitUntil('Intermediate applied', async () => (await handshake(port, 'TLSv1.2')) === 'TLSv1.2', {
        timeoutMs: 5000,
        intervalMs: 20,
      });

      // On the fake API server nothing rolls out: the operator writes Available False, the gauge says 0.
      const cr = await waitUntil('a status', () =>
        fake
          .peek<NetworkAddonsConfig>(NetworkAddonsConfigKind, { name: 'cluster' })
          ?.status?.conditions?.find((c) => c.type === 'Available'),
      );
      expect(cr.status).not.toBe('True');
      expect(await manager.registry.metrics()).toMatch(sample('kubevirt_cnao_cr_ready', '0'));
    } finally {
      await manager.stop();
    }
  });
});
