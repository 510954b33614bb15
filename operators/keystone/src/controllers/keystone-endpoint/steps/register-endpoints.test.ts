import { describe, expect, it } from 'vitest';
import { endpointsSummary } from './register-endpoints.js';

describe('endpointsSummary', () => {
  it("prints upstream's sorted `[interface:url ...]` list", () => {
    expect(
      endpointsSummary([
        { interface: 'public', url: 'http://p' },
        { interface: 'internal', url: 'http://i' },
      ]),
    ).toBe('[internal:http://i public:http://p]');
    expect(endpointsSummary([])).toBe('[]');
  });
});
