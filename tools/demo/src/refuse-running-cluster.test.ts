import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterLayout } from '@stackops/kube-env';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refuseRunningCluster } from './demo.js';

// An empty cache of its own: no cluster of any name exists until a test makes its folder.
let cache: string;
let saved: string | undefined;
beforeEach(() => {
  saved = process.env.XDG_CACHE_HOME;
  cache = mkdtempSync(join(tmpdir(), 'demo-refuse-'));
  process.env.XDG_CACHE_HOME = cache;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  rmSync(cache, { recursive: true, force: true });
});

describe('refuseRunningCluster with nothing running under the name', () => {
  it('lets the demo start a cluster that was never started or was purged', async () => {
    await expect(refuseRunningCluster('never-started', false)).resolves.toBeUndefined();
  });

  it('lets the demo start over a stopped cluster whose folder is kept', async () => {
    mkdirSync(clusterLayout('kept').root, { recursive: true });
    await expect(refuseRunningCluster('kept', false)).resolves.toBeUndefined();
  });
});
