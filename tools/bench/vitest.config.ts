import { defineConfig } from 'vitest/config';

// Unit tests of the harness's parsing and arithmetic, and the restart test, which runs the four
// operators as processes on a private control plane of its own (it needs the API server's audit log).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 240_000,
  },
});
