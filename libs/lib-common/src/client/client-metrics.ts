import type { Registry } from 'prom-client';
import { counter, histogram } from '../metrics/registry.js';

/** Kubernetes verbs as the client counts them; server-side apply is counted apart from patch. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete';

export const WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'apply', 'delete'];

/** Code recorded when no HTTP response came back. */
export const NO_RESPONSE = '<error>';

export interface CountFilter {
  verb?: Verb | readonly Verb[];
  code?: number | string;
}

/**
 * Per-client request counts by verb and response code. Tests read it to prove that a reconcile
 * with unchanged inputs issues zero writes; the same numbers also feed the Prometheus counter
 * `rest_client_requests_total`, shared by every client of the process.
 */
export class RequestCounter {
  private readonly counts = new Map<Verb, Map<string, number>>();

  record(verb: Verb, code: number | string): void {
    const byCode = this.counts.get(verb) ?? new Map<string, number>();
    const c = String(code);
    byCode.set(c, (byCode.get(c) ?? 0) + 1);
    this.counts.set(verb, byCode);
  }

  count(filter: CountFilter = {}): number {
    const verbs =
      filter.verb === undefined
        ? [...this.counts.keys()]
        : typeof filter.verb === 'string'
          ? [filter.verb]
          : filter.verb;
    let total = 0;
    for (const v of verbs) {
      for (const [code, n] of this.counts.get(v) ?? []) {
        if (filter.code === undefined || String(filter.code) === code) total += n;
      }
    }
    return total;
  }

  /** Requests that change state (create, update, patch, apply, delete), whatever their outcome. */
  writes(): number {
    return this.count({ verb: WRITE_VERBS });
  }

  snapshot(): Partial<Record<Verb, Record<string, number>>> {
    const out: Partial<Record<Verb, Record<string, number>>> = {};
    for (const [verb, byCode] of this.counts) out[verb] = Object.fromEntries(byCode);
    return out;
  }

  reset(): void {
    this.counts.clear();
  }
}

export interface ClientMetrics {
  observe(verb: Verb, method: string, code: number | string, seconds: number): void;
}

export function clientMetrics(host: string, registry?: Registry): ClientMetrics {
  const requests = counter(
    {
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests to the Kubernetes API, partitioned by status code, method, verb and host.',
      labelNames: ['code', 'method', 'verb', 'host'] as const,
    },
    registry,
  );
  const duration = histogram(
    {
      name: 'rest_client_request_duration_seconds',
      help: 'Time to the response headers of Kubernetes API requests, by verb.',
      labelNames: ['verb', 'host'] as const,
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    },
    registry,
  );
  return {
    observe(verb, method, code, seconds) {
      requests.inc({ code: String(code), method, verb, host });
      if (verb !== 'watch') duration.observe({ verb, host }, seconds);
    },
  };
}
