import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { binaryNames, binaryPath, ensureBinary } from './binaries.js';
import { buildSteps } from './build/components.js';
import { cacheLayout } from './paths.js';

describe('binaryNames', () => {
  it('lists exactly the binaries the build leaves in bin/', () => {
    const built = buildSteps
      .flatMap((step) => step.outputs)
      .filter((output) => output.startsWith('bin/'))
      .map((output) => output.slice('bin/'.length));
    expect([...binaryNames].sort()).toEqual([...new Set(built)].sort());
  });

  it('builds crane and helm first: what the image and release builds beside a cold build wait for', () => {
    expect(buildSteps.slice(0, 2).flatMap((step) => step.outputs)).toEqual(['bin/crane', 'bin/helm']);
  });
});

describe('ensureBinary', () => {
  const saved = process.env.XDG_CACHE_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
  });

  it('hands out a binary already in place while the cache is incomplete, without building or locking', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-env-binary-'));
    try {
      process.env.XDG_CACHE_HOME = dir;
      const layout = cacheLayout();
      mkdirSync(layout.bin, { recursive: true });
      writeFileSync(binaryPath('crane'), '#!/bin/sh\n', { mode: 0o755 });
      const built = () => {
        throw new Error('ensureBinary started a build');
      };
      expect(await ensureBinary('crane', { progress: built })).toBe(join(layout.bin, 'crane'));
      expect(existsSync(layout.lock)).toBe(false);
      expect(existsSync(layout.buildLog)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
