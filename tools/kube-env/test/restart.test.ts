import { mkdirSync, writeFileSync } from 'node:fs';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { runningComponents, stopCluster } from '../src/cluster/control-plane.js';
import { clusterLayout } from '../src/cluster/layout.js';
import { type ControlPlane, startControlPlane } from '../src/control-plane.js';
import { isAlive } from '../src/util/process-alive.js';
import { isNotFound } from './helpers.js';

// A second, private cluster (one node): stopping the shared one would break the other test files.
const name = `kube-env-restart-${process.pid}`;
const layout = clusterLayout(name);
afterAll(() => stopCluster(name, { purge: true }));

const configMap = { metadata: { name: 'survivor' }, data: { value: 'kept' } };
const pidsOf = (cp: ControlPlane) => Object.values(cp.handle.state.components).map((c) => c.pid);

async function readSurvivor(cp: ControlPlane): Promise<string | undefined> {
  try {
    const cm = await cp.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: 'survivor', namespace: 'default' });
    return cm.data?.value;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

describe('stopping and starting the control plane', () => {
  it('keeps etcd data across stop and start, and starts clean when asked to', {
    timeout: 300_000,
  }, async () => {
    let cp = await startControlPlane({ name, nodes: 1, fresh: true });
    await cp.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'default', body: configMap });
    const firstPids = pidsOf(cp);
    await cp.stop();
    expect(runningComponents(layout)).toEqual([]);
    expect(firstPids.filter(isAlive)).toEqual([]);

    cp = await startControlPlane({ name, nodes: 1 });
    expect(cp.reused).toBe(false);
    expect(await readSurvivor(cp)).toBe('kept');
    await cp.stop();

    cp = await startControlPlane({ name, nodes: 1, fresh: true });
    expect(await readSurvivor(cp)).toBeUndefined();
    await cp.stop({ purge: true });
  });

  it('reports a component that fails to start with its command line and the end of its log', {
    timeout: 120_000,
  }, async () => {
    const broken = clusterLayout(`${name}-broken`);
    mkdirSync(broken.root, { recursive: true });
    writeFileSync(broken.etcdData, 'not a directory'); // etcd cannot use a file as its data dir
    try {
      const error = await startControlPlane({ name: broken.name, nodes: 1, timeoutMs: 30_000 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/^etcd (exited|did not become ready)/);
      expect(error?.message).toMatch(/\ncommand: \S+\/bin\/etcd --name=kube-env /);
      expect(error?.message).toContain(`--data-dir=${broken.etcdData}`);
      expect(error?.message).toContain(`last 30 lines of ${broken.logFile('etcd')}:`);
      expect(runningComponents(broken)).toEqual([]);
    } finally {
      await stopCluster(broken.name, { purge: true });
    }
  });
});
