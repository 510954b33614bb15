import { PLACEMENT_API_PORT } from '../api/constants.js';
import type { ProbeConf, ProbeOverrides } from '../api/placementapi.js';

type Scheme = 'HTTP' | 'HTTPS';
type Json = Record<string, unknown>;

/** Upstream placement's probe timings: GET / on 8778, timeout and period 30 s, first after 5 s. */
const DEFAULT_PROBE: ProbeConf = { path: '/', timeoutSeconds: 30, periodSeconds: 30, initialDelaySeconds: 5 };
/** A startup probe exists only when `override.probes.startupProbes` asks for one. */
const DEFAULT_STARTUP: ProbeConf = { path: '/', periodSeconds: 10, failureThreshold: 6 };

/** Upstream's merge: an override field replaces the default only when it is set (> 0, non-empty). */
function merge(base: ProbeConf, override: ProbeConf | undefined): ProbeConf {
  const out: ProbeConf = { ...base };
  if (!override) return out;
  if (override.type) out.type = override.type;
  if (override.path) out.path = override.path;
  if (override.command && override.command.length > 0) out.command = override.command;
  if (override.scheme) out.scheme = override.scheme;
  for (const k of [
    'port',
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'failureThreshold',
  ] as const) {
    const v = override[k];
    if (v !== undefined && v > 0) out[k] = v;
  }
  return out;
}

function toProbe(conf: ProbeConf, scheme: Scheme): Json {
  const handler: Json =
    conf.type === 'Exec'
      ? { exec: { command: conf.command ?? [] } }
      : {
          httpGet: {
            path: conf.path ?? '/',
            port: conf.port ?? PLACEMENT_API_PORT,
            scheme: conf.scheme ?? scheme,
          },
        };
  return {
    ...handler,
    ...(conf.initialDelaySeconds ? { initialDelaySeconds: conf.initialDelaySeconds } : {}),
    ...(conf.timeoutSeconds ? { timeoutSeconds: conf.timeoutSeconds } : {}),
    ...(conf.periodSeconds ? { periodSeconds: conf.periodSeconds } : {}),
    ...(conf.failureThreshold ? { failureThreshold: conf.failureThreshold } : {}),
  };
}

/**
 * The API containers' probes: upstream's defaults (HTTPS when the public endpoint is TLS) with
 * `override.probes` merged in field by field.
 */
export function placementProbes(overrides: ProbeOverrides | undefined, scheme: Scheme) {
  return {
    livenessProbe: toProbe(merge(DEFAULT_PROBE, overrides?.livenessProbes), scheme),
    readinessProbe: toProbe(merge(DEFAULT_PROBE, overrides?.readinessProbes), scheme),
    ...(overrides?.startupProbes
      ? { startupProbe: toProbe(merge(DEFAULT_STARTUP, overrides.startupProbes), scheme) }
      : {}),
  };
}
