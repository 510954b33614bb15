import { describe, expect, it } from 'vitest';
import { parseDuration, parseManagerOptions } from './options.js';

describe('parseManagerOptions', () => {
  it('defaults to controller-runtime durations and loopback addresses', () => {
    expect(parseManagerOptions([], {})).toEqual({
      metricsBindAddress: '127.0.0.1:8080',
      metricsSecure: false,
      metricsTlsMinVersion: 'VersionTLS12',
      healthProbeBindAddress: '127.0.0.1:8081',
      leaderElect: false,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      gracefulShutdownTimeoutMs: 30_000,
    });
  });

  it('takes the minimum TLS version of secure metrics by its Kubernetes name, and refuses others naming the flag', () => {
    expect(parseManagerOptions(['--metrics-tls-min-version=VersionTLS13']).metricsTlsMinVersion).toBe(
      'VersionTLS13',
    );
    expect(parseManagerOptions([], { METRICS_TLS_MIN_VERSION: 'VersionTLS11' }).metricsTlsMinVersion).toBe(
      'VersionTLS11',
    );
    expect(() => parseManagerOptions(['--metrics-tls-min-version', 'TLSv1.3'])).toThrow(
      '--metrics-tls-min-version: "TLSv1.3" is not one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
    );
  });

  it('reads the environment, and flags win over it', () => {
    const env = {
      LEADER_ELECT: 'true',
      POD_NAMESPACE: 'openstack',
      WATCH_NAMESPACE: 'a, b',
      LEASE_DURATION: '30s',
      METRICS_BIND_ADDRESS: ':9090',
    };
    const f = parseManagerOptions(
      ['--leader-elect=false', '--watch-namespace', 'c', '--renew-deadline=1m'],
      env,
    );
    expect(f.leaderElect).toBe(false);
    expect(f.leaderElectionNamespace).toBe('openstack');
    expect(f.namespaces).toEqual(['c']);
    expect(f.leaseDurationMs).toBe(30_000);
    expect(f.renewDeadlineMs).toBe(60_000);
    expect(f.metricsBindAddress).toBe(':9090');
  });

  it('takes a bare boolean flag as true and repeated list flags together', () => {
    const f = parseManagerOptions(
      ['--leader-elect', '--as', 'system:serviceaccount:ns:op', '--as-group', 'g1', '--as-group=g2'],
      {},
    );
    expect(f.leaderElect).toBe(true);
    expect(f.impersonate).toEqual({ user: 'system:serviceaccount:ns:op', groups: ['g1', 'g2'] });
  });

  it('refuses unknown flags, stray arguments and bad values', () => {
    expect(() => parseManagerOptions(['--leader-elcet'], {})).toThrow(/unknown flag/);
    expect(() => parseManagerOptions(['extra'], {})).toThrow(/unexpected argument/);
    expect(() => parseManagerOptions(['--lease-duration=soon'], {})).toThrow(/invalid duration/);
    expect(() => parseManagerOptions([], { LEADER_ELECT: 'maybe' })).toThrow(/not a boolean/);
  });
});

describe('parseDuration', () => {
  it('parses Go-style durations; a bare number is seconds', () => {
    expect(parseDuration('15s')).toBe(15_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('2')).toBe(2_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
  });
});
