import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The end-to-end test runs the whole demo on its own control plane; the install-alone test uses the
// shared one from kube-env's global setup. Long timeouts: real charts, real rollouts.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: [fileURLToPath(import.meta.resolve('@stackops/kube-env/vitest-setup'))],
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
