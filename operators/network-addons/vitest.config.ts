import { kubeEnvProjects } from '@stackops/kube-env/vitest-projects';
import { defineConfig } from 'vitest/config';

// The NetworkAddonsConfig is a cluster-wide singleton and its components include cluster-scoped
// objects, so the integration files run one at a time.
export default defineConfig(
  kubeEnvProjects({ integration: { fileParallelism: false, testTimeout: 120_000 } }),
);
