import { describe, expect, it } from 'vitest';
import { binaryNames } from './binaries.js';
import { buildSteps } from './build/components.js';

describe('binaryNames', () => {
  it('lists exactly the binaries the build leaves in bin/', () => {
    const built = buildSteps
      .flatMap((step) => step.outputs)
      .filter((output) => output.startsWith('bin/'))
      .map((output) => output.slice('bin/'.length));
    expect([...binaryNames].sort()).toEqual([...new Set(built)].sort());
  });
});
