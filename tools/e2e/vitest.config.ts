import { defineConfig } from 'vitest/config';

// One real-node cluster per run, with the operator images loaded once (test/global-setup.ts); the
// files share it one after another. Long timeouts: real pods, real rollouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
