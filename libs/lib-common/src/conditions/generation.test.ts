import { describe, expect, it } from 'vitest';
import {
  type GenerationTracked,
  isGenerationObserved,
  isReadyAtCurrentGeneration,
  observedGenerationOf,
} from './generation.js';

const obj = (
  generation: number | undefined,
  observed: number | undefined,
  ready?: string,
): GenerationTracked => ({
  metadata: generation === undefined ? {} : { generation },
  status: {
    ...(observed === undefined ? {} : { observedGeneration: observed }),
    conditions: ready ? [{ type: 'Ready', status: ready }] : [],
  },
});

describe('observedGeneration helpers', () => {
  it.each([
    ['observed and Ready True', obj(3, 3, 'True'), true, true],
    ['observed, Ready False', obj(3, 3, 'False'), true, false],
    ['observed, no Ready', obj(3, 3), true, false],
    ['stale observation with Ready True', obj(4, 3, 'True'), false, false],
    ['no status at all', { metadata: { generation: 1 } }, false, false],
    ['no generation', obj(undefined, undefined, 'True'), false, false],
  ])('%s → observed=%s ready=%s', (_name, o, observed, ready) => {
    expect(isGenerationObserved(o)).toBe(observed);
    expect(isReadyAtCurrentGeneration(o)).toBe(ready);
  });

  it('observedGenerationOf is metadata.generation', () => {
    expect(observedGenerationOf({ metadata: { generation: 7 } })).toBe(7);
  });
});
