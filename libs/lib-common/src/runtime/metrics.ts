import type { Registry } from 'prom-client';
import { counter, gauge, histogram } from '../metrics/registry.js';
import type { InformerMetrics } from './informer.js';
import type { QueueMetrics } from './queue.js';

/** The reconcile outcomes, as controller-runtime labels them. */
type ReconcileResultLabel = 'success' | 'error' | 'requeue_after';

export interface ControllerMetrics {
  reconciled(result: ReconcileResultLabel, seconds: number, terminal?: boolean): void;
  maxConcurrency(n: number): void;
  queue: QueueMetrics;
}

const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Controller and workqueue series under controller-runtime's names, so its dashboards apply. */
export function controllerMetrics(controller: string, registry?: Registry): ControllerMetrics {
  const total = counter(
    {
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
    },
    registry,
  );
  const errors = counter(
    {
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
    },
    registry,
  );
  const terminal = counter(
    {
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'] as const,
    },
    registry,
  );
  const time = histogram(
    {
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: durationBuckets,
    },
    registry,
  );
  const workers = gauge(
    {
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'] as const,
    },
    registry,
  );
  const maxWorkers = gauge(
    {
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'] as const,
    },
    registry,
  );
  const depth = gauge(
    {
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'] as const,
    },
    registry,
  );
  const adds = counter(
    {
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'] as const,
    },
    registry,
  );
  const queued = histogram(
    {
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'] as const,
      buckets: durationBuckets,
    },
    registry,
  );
  const worked = histogram(
    {
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'] as const,
      buckets: durationBuckets,
    },
    registry,
  );
  const retries = counter(
    {
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'] as const,
    },
    registry,
  );
  const q = { name: controller, controller };
  // Present from the start at 0, as controller-runtime does, so a rule on them has a series
  // before the first error (and `rate` sees the first one).
  errors.inc({ controller }, 0);
  depth.set(q, 0);
  return {
    reconciled(result, seconds, isTerminal = false) {
      total.inc({ controller, result });
      time.observe({ controller }, seconds);
      if (result === 'error') errors.inc({ controller });
      if (isTerminal) terminal.inc({ controller });
    },
    maxConcurrency(n) {
      maxWorkers.set({ controller }, n);
    },
    queue: {
      depth: (n) => depth.set(q, n),
      added: () => adds.inc(q),
      queued: (s) => queued.observe(q, s),
      worked: (s) => worked.observe(q, s),
      retried: () => retries.inc(q),
      running: (n) => workers.set({ controller }, n),
    },
  };
}

export function informerMetrics(registry?: Registry): InformerMetrics {
  const restarts = counter(
    {
      name: 'stackops_informer_restarts_total',
      help: 'Informer list/watch restarts by kind and reason (gone = 410 relist, error, idle = watchdog)',
      labelNames: ['kind', 'reason'] as const,
    },
    registry,
  );
  const objects = gauge(
    {
      name: 'stackops_informer_objects',
      help: 'Objects in the informer cache by kind',
      labelNames: ['kind'] as const,
    },
    registry,
  );
  return {
    restarted: (kind, reason) => restarts.inc({ kind, reason }),
    objects: (kind, n) => objects.set({ kind }, n),
  };
}

export function leaderMetrics(name: string, registry?: Registry): { leading(isLeader: boolean): void } {
  const status = gauge(
    {
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'] as const,
    },
    registry,
  );
  // A standby exports 0 from the start, so "no leader anywhere" shows as every replica at 0.
  status.set({ name }, 0);
  return { leading: (isLeader) => status.set({ name }, isLeader ? 1 : 0) };
}
