import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterStatus } from './control-plane.js';
import { clusterLayout, shellExports } from './layout.js';

// Each test gets an empty cache of its own: no cluster exists until the test makes its folder.
let cache: string;
let saved: string | undefined;
beforeEach(() => {
  saved = process.env.XDG_CACHE_HOME;
  cache = mkdtempSync(join(tmpdir(), 'kube-env-absent-'));
  process.env.XDG_CACHE_HOME = cache;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  rmSync(cache, { recursive: true, force: true });
});

describe('shellExports', () => {
  it('refuses a cluster that was never started, naming the command that starts it', () => {
    expect(() => shellExports('never-started', '/bin-dir')).toThrow(
      /cluster never-started does not exist .*kube-env up --name never-started/,
    );
  });

  it("exports the cluster's kubeconfig and the binaries once the cluster exists", () => {
    const { kubeconfig, root } = clusterLayout('started');
    mkdirSync(root, { recursive: true });
    writeFileSync(kubeconfig, 'apiVersion: v1\n');
    expect(shellExports('started', '/bin-dir')).toBe(
      `export KUBECONFIG=${kubeconfig}\nexport PATH=/bin-dir:$PATH\n`,
    );
  });
});

describe('clusterStatus without running components', () => {
  it('is absent for a cluster that was never started or was purged', async () => {
    expect((await clusterStatus('never-started')).phase).toBe('absent');
  });

  it('is stopped for a cluster whose state is kept', async () => {
    mkdirSync(clusterLayout('kept').root, { recursive: true });
    expect((await clusterStatus('kept')).phase).toBe('stopped');
  });
});
