import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        // Against a real local control plane (kube-env). The NetworkAddonsConfig is a cluster-wide
        // singleton and its components include cluster-scoped objects, so the files run one at a time.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['@stackops/kube-env/vitest-setup'],
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
