import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // lib-common does not export ./schema yet; point at its build output until it does.
    alias: {
      '@stackops/lib-common/schema': fileURLToPath(
        new URL('../../libs/lib-common/dist/schema/index.js', import.meta.url),
      ),
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
