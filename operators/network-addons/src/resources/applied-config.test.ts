import { describe, expect, it } from 'vitest';
import { fillDefaults } from '../network/network.js';
import { appliedConfigMap, appliedConfigName, readAppliedConfig } from './applied-config.js';

describe('applied configuration ConfigMap', () => {
  it('is named like upstream’s, and round-trips the filled spec', () => {
    const spec = fillDefaults({ kubeMacPool: {} }, undefined, () => Uint8Array.from([1, 2]));
    const cm = appliedConfigMap('cluster', 'ops', spec);
    expect(cm.metadata).toEqual({
      name: 'cluster-networks-addons-operator-applied-cluster',
      namespace: 'ops',
    });
    expect(appliedConfigName('cluster')).toBe(cm.metadata.name);
    expect(readAppliedConfig(cm)).toEqual(spec);
  });

  it('reads a missing ConfigMap as no previous spec and refuses garbage', () => {
    expect(readAppliedConfig(undefined)).toBeUndefined();
    expect(() => readAppliedConfig({ metadata: {}, data: { applied: '[1]' } })).toThrow(/not a JSON object/);
    expect(() => readAppliedConfig({ metadata: {}, data: { applied: '{' } })).toThrow();
  });
});
