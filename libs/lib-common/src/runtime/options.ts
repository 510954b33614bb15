import { isTlsVersionName, TLS_VERSION_NAMES, type TlsVersionName } from '../metrics/tls.js';

/** Manager settings that come from the command line or the environment (see `parseManagerOptions`). */
export interface ManagerFlags {
  /** `host:port` for /metrics; `0` disables. Default 127.0.0.1:8080. */
  metricsBindAddress: string;
  /** Serve /metrics over HTTPS, authenticated and authorized by the API server. Default false. */
  metricsSecure: boolean;
  /** `tls.crt`/`tls.key` for secure metrics; absent = a self-signed certificate made at start. */
  metricsCertDir?: string;
  /** Lowest TLS version secure metrics accept (`VersionTLS12`, `VersionTLS13`, …). Default VersionTLS12. */
  metricsTlsMinVersion: TlsVersionName;
  /** `host:port` for /healthz and /readyz; `0` disables. Default 127.0.0.1:8081. */
  healthProbeBindAddress: string;
  leaderElect: boolean;
  leaderElectionId?: string;
  leaderElectionNamespace?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Namespaces to watch; all when absent. */
  namespaces?: string[];
  gracefulShutdownTimeoutMs: number;
  logLevel?: string;
  kubeconfig?: string;
  impersonate?: { user: string; groups?: string[] };
}

type Kind = 'string' | 'bool' | 'duration' | 'list';
type Value = string | boolean | number | string[];

interface FlagSpec {
  env: string[];
  kind: Kind;
  apply: (f: ManagerFlags, v: Value) => void;
}

/** A flag that sets one field of ManagerFlags as is. */
const field = (key: keyof ManagerFlags, kind: Kind, ...env: string[]): FlagSpec => ({
  env,
  kind,
  apply: (f, v) => {
    (f as unknown as Record<string, Value>)[key] = v;
  },
});

const specs: Record<string, FlagSpec> = {
  'metrics-bind-address': field('metricsBindAddress', 'string', 'METRICS_BIND_ADDRESS'),
  'metrics-secure': field('metricsSecure', 'bool', 'METRICS_SECURE'),
  'metrics-cert-dir': field('metricsCertDir', 'string', 'METRICS_CERT_DIR'),
  'metrics-tls-min-version': {
    env: ['METRICS_TLS_MIN_VERSION'],
    kind: 'string',
    apply: (f, v) => {
      const name = String(v);
      if (!isTlsVersionName(name))
        throw new RangeError(
          `--metrics-tls-min-version: "${name}" is not one of ${TLS_VERSION_NAMES.join(', ')}`,
        );
      f.metricsTlsMinVersion = name;
    },
  },
  'health-probe-bind-address': field('healthProbeBindAddress', 'string', 'HEALTH_PROBE_BIND_ADDRESS'),
  'leader-elect': field('leaderElect', 'bool', 'LEADER_ELECT'),
  'leader-election-id': field('leaderElectionId', 'string', 'LEADER_ELECTION_ID'),
  'leader-election-namespace': field(
    'leaderElectionNamespace',
    'string',
    'LEADER_ELECTION_NAMESPACE',
    'POD_NAMESPACE',
  ),
  'lease-duration': field('leaseDurationMs', 'duration', 'LEASE_DURATION'),
  'renew-deadline': field('renewDeadlineMs', 'duration', 'RENEW_DEADLINE'),
  'retry-period': field('retryPeriodMs', 'duration', 'RETRY_PERIOD'),
  'graceful-shutdown-timeout': field('gracefulShutdownTimeoutMs', 'duration', 'GRACEFUL_SHUTDOWN_TIMEOUT'),
  'log-level': field('logLevel', 'string', 'LOG_LEVEL'),
  kubeconfig: field('kubeconfig', 'string', 'KUBECONFIG'),
  'watch-namespace': {
    env: ['WATCH_NAMESPACE'],
    kind: 'list',
    apply: (f, v) => {
      const list = v as string[];
      if (list.length) f.namespaces = list;
      else delete f.namespaces;
    },
  },
  as: {
    env: ['IMPERSONATE_USER'],
    kind: 'string',
    apply: (f, v) => {
      f.impersonate = { ...f.impersonate, user: String(v) };
    },
  },
  'as-group': {
    env: ['IMPERSONATE_GROUPS'],
    kind: 'list',
    apply: (f, v) => {
      f.impersonate = { user: f.impersonate?.user ?? '', groups: v as string[] };
    },
  },
};

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration (`15s`, `500ms`, `1m30s`); a bare number means seconds. */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== v)
    throw new RangeError(`invalid duration "${value}"`);
  return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * (units[p[2] ?? 's'] ?? 1000), 0));
}

function parseBool(value: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new RangeError(`--${name}: not a boolean: "${value}"`);
}

function convert(spec: FlagSpec, name: string, raw: string): Value {
  switch (spec.kind) {
    case 'bool':
      return parseBool(raw, name);
    case 'duration':
      return parseDuration(raw);
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    default:
      return raw;
  }
}

const defaultManagerFlags = (): ManagerFlags => ({
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

/**
 * Manager configuration from flags and environment, controller-runtime style
 * (`--metrics-bind-address`, `--health-probe-bind-address`, `--leader-elect`, `--watch-namespace`,
 * `--lease-duration`, …). Flags win over environment variables, which win over defaults; unknown
 * flags are an error so that typos do not go unnoticed.
 */
export function parseManagerOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): ManagerFlags {
  const flags = defaultManagerFlags();
  for (const [name, spec] of Object.entries(specs)) {
    const raw = spec.env.map((e) => env[e]).find((v) => v !== undefined && v !== '');
    if (raw !== undefined) spec.apply(flags, convert(spec, name, raw));
  }
  const fromArgs = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!m?.[1]) throw new RangeError(`unexpected argument "${arg}"`);
    const name = m[1];
    const spec = specs[name];
    if (!spec) throw new RangeError(`unknown flag --${name}`);
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (
        spec.kind === 'bool' &&
        (next === undefined || next.startsWith('--') || !/^(true|false)$/i.test(next))
      ) {
        value = 'true';
      } else {
        if (next === undefined) throw new RangeError(`--${name} needs a value`);
        value = next;
        i += 1;
      }
    }
    fromArgs.set(name, [...(fromArgs.get(name) ?? []), value]);
  }
  for (const [name, values] of fromArgs) {
    const spec = specs[name];
    if (!spec) continue;
    if (spec.kind === 'list')
      spec.apply(
        flags,
        values.flatMap((v) => convert(spec, name, v) as string[]),
      );
    else spec.apply(flags, convert(spec, name, values[values.length - 1] ?? ''));
  }
  if (flags.impersonate && !flags.impersonate.user) throw new RangeError('--as-group needs --as');
  return flags;
}
