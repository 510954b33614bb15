import { kubeEnvProjects } from '@stackops/kube-env/vitest-projects';
import { defineConfig } from 'vitest/config';

export default defineConfig(
  kubeEnvProjects({ integration: { fileParallelism: false, testTimeout: 120_000 } }),
);
