import { describe, expect, it } from 'vitest';
import { watchTimeoutSeconds } from './watch-timeout.js';

describe('watchTimeoutSeconds', () => {
  it('spans 30 to 60 minutes, the range the API server picks for a watch that names none', () => {
    expect(watchTimeoutSeconds(() => 0)).toBe(1800);
    expect(watchTimeoutSeconds(() => 0.5)).toBe(2700);
    expect(watchTimeoutSeconds(() => 0.99999)).toBe(3599);
  });

  it('spreads the watches of one process: 200 draws give many different timeouts', () => {
    const drawn = new Set(Array.from({ length: 200 }, () => watchTimeoutSeconds()));
    expect(drawn.size).toBeGreaterThan(100);
    for (const s of drawn) expect(s >= 1800 && s < 3600).toBe(true);
  });
});
