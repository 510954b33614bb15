import { defineConfig } from 'vitest/config';

export default defineConfig({
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
