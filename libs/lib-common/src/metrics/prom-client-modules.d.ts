// prom-client ships types for its index only; these are the modules src/metrics/prom-client.ts reads.
declare module 'prom-client/lib/registry.js' {
  import type { Registry } from 'prom-client';

  const RegistryClass: typeof Registry & { readonly globalRegistry: Registry };
  export default RegistryClass;
}
declare module 'prom-client/lib/counter.js' {
  import type { Counter } from 'prom-client';

  const CounterClass: typeof Counter;
  export default CounterClass;
}
declare module 'prom-client/lib/gauge.js' {
  import type { Gauge } from 'prom-client';

  const GaugeClass: typeof Gauge;
  export default GaugeClass;
}
declare module 'prom-client/lib/histogram.js' {
  import type { Histogram } from 'prom-client';

  const HistogramClass: typeof Histogram;
  export default HistogramClass;
}
declare module 'prom-client/lib/defaultMetrics.js' {
  import type { collectDefaultMetrics } from 'prom-client';

  const collect: typeof collectDefaultMetrics;
  export default collect;
}
