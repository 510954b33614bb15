import { describe, expect, it } from 'vitest';
import { OPERATORS, selectOperators } from './select.js';

describe('selectOperators', () => {
  it('runs all four without --operators, and leaves the manager flags', () => {
    const { operators, argv } = selectOperators(['--leader-elect'], {});
    expect(operators.map((o) => o.name)).toEqual(Object.values(OPERATORS).map((o) => o.name));
    expect(argv).toEqual(['--leader-elect']);
  });

  it('takes the named ones in order, from the flag over the environment', () => {
    const pick = selectOperators(['--operators=sip,keystone'], { OPERATORS: 'placement' });
    expect(pick.operators.map((o) => o.name)).toEqual(['sip-operator', 'keystone-operator']);
    expect(selectOperators([], { OPERATORS: 'placement' }).operators.map((o) => o.name)).toEqual([
      'placement-operator',
    ]);
  });

  it('names the choices for an unknown or empty list', () => {
    expect(() => selectOperators(['--operators=keystone,nova'], {})).toThrow(
      '--operators: unknown "nova"; choose from keystone, placement, network-addons, sip',
    );
    expect(() => selectOperators(['--operators='], {})).toThrow(/unknown ""/);
  });
});
