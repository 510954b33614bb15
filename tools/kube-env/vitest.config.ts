import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Other packages point at the built '@stackops/kube-env/vitest-setup' (see README); this
    // package uses its source so its own tests need no build first.
    globalSetup: ['./src/vitest-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
