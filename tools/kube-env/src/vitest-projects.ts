import { fileURLToPath } from 'node:url';
import type { TestProjectInlineConfiguration, ViteUserConfig } from 'vitest/config';

type ProjectTest = NonNullable<TestProjectInlineConfiguration['test']>;

export interface KubeEnvProjectsOptions {
  /** What the integration project (test/**) changes from the defaults: timeouts, file parallelism. */
  integration?: ProjectTest;
  /** A bench project (bench/**), on only when the variable `env` is `1` (benchmarks print figures). */
  bench?: { env: string; test?: ProjectTest };
}

/**
 * The test layout every package on kube-env shares: a `unit` project (src/**) and an `integration`
 * project (test/**) that runs against one real control plane per run (or the cluster named by
 * KUBE_ENV_NAME with KUBE_ENV_REUSE=1), plus an optional bench project. One place, so a timeout or
 * the setup's path is changed once for every package.
 */
export function kubeEnvProjects(options: KubeEnvProjectsOptions = {}): ViteUserConfig {
  const globalSetup = [fileURLToPath(new URL('./vitest-setup.js', import.meta.url))];
  const projects: TestProjectInlineConfiguration[] = [
    { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
    {
      extends: true,
      test: { name: 'integration', include: ['test/**/*.test.ts'], globalSetup, ...options.integration },
    },
  ];
  const bench = options.bench;
  if (bench && process.env[bench.env] === '1') {
    projects.push({
      extends: true,
      test: {
        name: 'bench',
        include: ['bench/**/*.bench.ts'],
        globalSetup,
        disableConsoleIntercept: true,
        testTimeout: 600_000,
        ...bench.test,
      },
    });
  }
  return { test: { testTimeout: 60_000, hookTimeout: 120_000, projects } };
}
