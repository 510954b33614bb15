/**
 * The parts of prom-client the operators use, from its own modules: its index also loads the
 * cluster aggregator (node:cluster), the Pushgateway (http, https, zlib) and Summary (tdigest),
 * +5 MiB RSS in every operator for classes nothing here uses (tools/bench, ADR 0026). Same
 * classes as the index's, so a registry from either is the same thing.
 */
import type * as Prom from 'prom-client';
import CounterClass from 'prom-client/lib/counter.js';
import GaugeClass from 'prom-client/lib/gauge.js';
import HistogramClass from 'prom-client/lib/histogram.js';
import RegistryClass from 'prom-client/lib/registry.js';

export type {
  CounterConfiguration,
  GaugeConfiguration,
  HistogramConfiguration,
} from 'prom-client';
export type Registry = Prom.Registry;
export type Counter<T extends string = string> = Prom.Counter<T>;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export type Histogram<T extends string = string> = Prom.Histogram<T>;

export const Registry: typeof Prom.Registry = RegistryClass;
export const Counter: typeof Prom.Counter = CounterClass;
export const Gauge: typeof Prom.Gauge = GaugeClass;
export const Histogram: typeof Prom.Histogram = HistogramClass;
/** The global registry (prom-client's `register`). */
export const register: Prom.Registry = RegistryClass.globalRegistry;
/**
 * prom-client's process and Node.js metrics on `config.register`, loaded only now: that module and the
 * built-ins it needs (`v8`, `perf_hooks`) are start-up code no probe waits for (ADR 0065).
 */
export async function collectDefaultMetrics(
  config: Parameters<typeof Prom.collectDefaultMetrics>[0],
): Promise<void> {
  const { default: collect } = await import('./default-metrics.js');
  collect(config);
}
