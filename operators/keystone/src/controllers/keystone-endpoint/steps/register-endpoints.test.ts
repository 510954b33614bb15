import { describe, expect, it } from 'vitest';
import { endpointsSummary } from './register-endpoints.js';

describe('endpointsSummary', () => {
  it("gives the items of upstream's sorted `[interface:url ...]` list", () => {
    expect(
      endpointsSummary([
        { interface: 'public', url: 'http://p' },
        { interface: 'internal', url: 'http://i' },
      ]),
    ).toEqual(['internal:http://i', 'public:http://p']);
    expect(endpointsSummary([])).toEqual([]);
  });
});
