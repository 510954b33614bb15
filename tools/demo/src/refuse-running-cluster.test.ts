import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { clusterLayout } from '@stackops/kube-env';
import { describe, expect, it } from 'vitest';
import { refuseRunningCluster } from './demo.js';

// Names no cluster has: nothing of them runs, whatever else this machine runs.
const unusedName = () => `refuse-test-${randomUUID().slice(0, 8)}`;

describe('refuseRunningCluster with nothing running under the name', () => {
  it('lets the demo start a cluster that was never started or was purged', async () => {
    await expect(refuseRunningCluster(unusedName(), false)).resolves.toBeUndefined();
  });

  it('lets the demo start over a stopped cluster whose folder is kept', async () => {
    const name = unusedName();
    const { root } = clusterLayout(name);
    mkdirSync(root, { recursive: true });
    try {
      await expect(refuseRunningCluster(name, false)).resolves.toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
