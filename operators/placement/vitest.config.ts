import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const kubeEnvSetup = fileURLToPath(new URL('../../tools/kube-env/dist/vitest-setup.js', import.meta.url));

// Benchmarks print figures; they run only through `npm run bench` (PLACEMENT_BENCH=1).
const bench: TestProjectInlineConfiguration[] =
  process.env['PLACEMENT_BENCH'] === '1'
    ? [
        {
          extends: true,
          test: {
            name: 'bench',
            include: ['bench/**/*.bench.ts'],
            globalSetup: [kubeEnvSetup],
            disableConsoleIntercept: true,
            testTimeout: 600_000,
          },
        },
      ]
    : [];

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
          globalSetup: [kubeEnvSetup],
          testTimeout: 180_000,
        },
      },
      ...bench,
    ],
  },
});
