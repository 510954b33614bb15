import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterLayout, shellExports } from './layout.js';

describe('shellExports', () => {
  let cache: string;
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.XDG_CACHE_HOME;
    cache = mkdtempSync(join(tmpdir(), 'kube-env-layout-'));
    process.env.XDG_CACHE_HOME = cache;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    rmSync(cache, { recursive: true, force: true });
  });

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
