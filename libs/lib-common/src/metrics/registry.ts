import {
  Counter,
  type CounterConfiguration,
  register as defaultRegistry,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  type Registry,
} from './prom-client.js';

/**
 * prom-client refuses to register one name twice, yet a process may build several clients or
 * managers (tests run two managers side by side). These helpers return the metric already
 * registered under that name, so every instance shares one series family.
 */
export function counter<L extends string>(
  cfg: Omit<CounterConfiguration<L>, 'registers'>,
  registry: Registry = defaultRegistry,
): Counter<L> {
  const existing = registry.getSingleMetric(cfg.name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter<L>({ ...cfg, registers: [registry] });
}

export function gauge<L extends string>(
  cfg: Omit<GaugeConfiguration<L>, 'registers'>,
  registry: Registry = defaultRegistry,
): Gauge<L> {
  const existing = registry.getSingleMetric(cfg.name);
  if (existing instanceof Gauge) return existing as Gauge<L>;
  return new Gauge<L>({ ...cfg, registers: [registry] });
}

export function histogram<L extends string>(
  cfg: Omit<HistogramConfiguration<L>, 'registers'>,
  registry: Registry = defaultRegistry,
): Histogram<L> {
  const existing = registry.getSingleMetric(cfg.name);
  if (existing instanceof Histogram) return existing as Histogram<L>;
  return new Histogram<L>({ ...cfg, registers: [registry] });
}
