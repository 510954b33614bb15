import { defineConfig } from 'vitest/config';

// The first run builds operator-sdk from its Go module (minutes on a cold cache; tools/kube-env
// caches it by version), hence the long hook timeout.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_800_000,
  },
});
