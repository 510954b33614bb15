import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterStatus } from './control-plane.js';
import { clusterLayout } from './layout.js';

describe('clusterStatus without running components', () => {
  let cache: string;
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.XDG_CACHE_HOME;
    cache = mkdtempSync(join(tmpdir(), 'kube-env-status-'));
    process.env.XDG_CACHE_HOME = cache;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  it('is absent for a cluster that was never started or was purged', async () => {
    expect((await clusterStatus('never-started')).phase).toBe('absent');
  });

  it('is stopped for a cluster whose state is kept', async () => {
    mkdirSync(clusterLayout('kept').root, { recursive: true });
    expect((await clusterStatus('kept')).phase).toBe('stopped');
  });
});
