import { kubeEnvProjects } from '@stackops/kube-env/vitest-projects';
import { defineConfig } from 'vitest/config';

// Benchmarks print figures; they run only through `npm run bench` (LIB_COMMON_BENCH=1).
export default defineConfig(
  kubeEnvProjects({
    integration: { testTimeout: 180_000 },
    bench: { env: 'LIB_COMMON_BENCH', test: { fileParallelism: false, execArgv: ['--expose-gc'] } },
  }),
);
