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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        // Integration tests run against a real local control plane (kube-env), one namespace per test.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['@stackops/kube-env/vitest-setup'],
        },
      },
    ],
  },
});
