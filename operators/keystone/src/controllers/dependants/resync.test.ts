import { describe, expect, it } from 'vitest';
import { DEFAULT_RESYNC_MS, resyncPeriodFromEnv } from './resync.js';

describe('resyncPeriodFromEnv', () => {
  it('defaults to 5 minutes, reads a Go duration, refuses nonsense and zero', () => {
    expect(DEFAULT_RESYNC_MS).toBe(300_000);
    expect(resyncPeriodFromEnv({})).toBe(300_000);
    expect(resyncPeriodFromEnv({ KEYSTONE_RESYNC_PERIOD: '90s' })).toBe(90_000);
    expect(resyncPeriodFromEnv({ KEYSTONE_RESYNC_PERIOD: '1m30s' })).toBe(90_000);
    expect(() => resyncPeriodFromEnv({ KEYSTONE_RESYNC_PERIOD: 'soon' })).toThrow(/invalid duration/);
    expect(() => resyncPeriodFromEnv({ KEYSTONE_RESYNC_PERIOD: '0s' })).toThrow(/more than 0/);
  });
});
