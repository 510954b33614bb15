import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/generate.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/migration.test.ts'],
          globalSetup: ['test/private-cluster.ts'],
        },
      },
    ],
  },
});
