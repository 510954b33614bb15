import { defineConfig } from 'vitest/config';

// The end-to-end test runs the whole demo with its own control plane: one file, long timeouts.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
