import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // One real control plane per run (or the one named by KUBE_ENV_NAME with KUBE_ENV_REUSE=1).
          globalSetup: [fileURLToPath(import.meta.resolve('@stackops/kube-env/vitest-setup'))],
          testTimeout: 180_000,
        },
      },
    ],
  },
});
