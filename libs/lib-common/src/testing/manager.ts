import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { createLogger } from '../logging/logger.js';
import { Manager, type ManagerOptions } from '../runtime/manager.js';
import { loadTestKubeConfig } from './kubeconfig.js';

export type TestManagerOptions = Partial<Omit<ManagerOptions, 'name' | 'kubeConfig'>> & {
  name: string;
  kubeConfig?: KubeConfig;
};

/**
 * Runs a manager in-process against the test control plane: no probe or metrics ports, its own
 * prom-client registry (so several managers in one test do not share series), quiet logs
 * (LOG_LEVEL overrides), and informers synced before it resolves. Scope it to the test's
 * namespace with `namespaces`, so parallel tests do not see each other's objects. `setup` registers
 * the controllers (it may be async, e.g. to ask the API server what it serves first).
 */
export async function startTestManager(
  opts: TestManagerOptions,
  setup: (manager: Manager) => unknown = () => undefined,
): Promise<Manager> {
  const manager = new Manager({
    logger: createLogger({ name: opts.name, level: process.env['LOG_LEVEL'] ?? 'warn', pretty: false }),
    registry: new Registry(),
    gracefulShutdownTimeoutMs: 5_000,
    ...opts,
    kubeConfig: opts.kubeConfig ?? loadTestKubeConfig(),
  });
  await setup(manager);
  await manager.start();
  await manager.cache.waitForSync();
  return manager;
}
