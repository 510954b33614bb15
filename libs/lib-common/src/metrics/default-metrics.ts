/**
 * prom-client's default metrics, for `collectDefaultMetrics` (prom-client.ts) to import on use: an
 * ES module, so the operators' bundles put it and the CommonJS module it re-exports in a chunk of
 * their own (tools/images/bundle-operator.mjs refuses `import()` of a CommonJS module).
 */
import collect from 'prom-client/lib/defaultMetrics.js';

export default collect;
