import { kubeEnvProjects } from '@stackops/kube-env/vitest-projects';
import { defineConfig } from 'vitest/config';

// Integration tests run one namespace per test, so the files run in parallel.
export default defineConfig(kubeEnvProjects());
