import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  createKubeClient,
  type Impersonation,
  type RestKubeClient,
  shareConnection,
} from '../client/client.js';
import type { KubeObject } from '../client/types.js';
import { createLogger } from '../logging/logger.js';
import { collectDefaultMetrics, register as globalRegistry, type Registry } from '../metrics/prom-client.js';
import { trackResourceReady } from '../metrics/resource-ready.js';
import type { MetricsTls } from '../metrics/tls.js';
import { InformerCache, type InformerCacheOptions } from './cache.js';
import { type Controller, ControllerBuilder, type ControllerOptions } from './controller.js';
import { CrdSchemaWatch } from './crd-schema.js';
import type { Informer } from './informer.js';
import { type LeaderElectionOptions, LeaderElector } from './leader.js';
import { controllerMetrics, informerMetrics, leaderMetrics } from './metrics.js';
import type { OptionalKindWatch } from './optional-watch.js';
import type { ManagerFlags } from './options.js';
import { type EventRecorder, KubeEventRecorder } from './recorder.js';
import {
  ApiServerCheck,
  asyncProbe,
  authorizedRoute,
  type Endpoint,
  HttpEndpoint,
  parseEndpoint,
  probe,
  type Route,
  servingCertificate,
} from './server.js';
import { nextTurn } from './turns.js';

export interface ManagerOptions {
  /** The operator's name, e.g. `keystone-operator` (logs, Events, Lease, default field manager). */
  name: string;
  kubeConfig: KubeConfig;
  /** SSA field manager; default `stackops-<name>`. */
  fieldManager?: string;
  /** Run as another identity, e.g. the chart's ServiceAccount, to prove its RBAC. */
  impersonate?: Impersonation;
  /** Watch only these namespaces (all when absent). */
  namespaces?: string[];
  /** `true` for defaults (Lease `<name>-leader` in POD_NAMESPACE or `default`), or explicit settings. */
  leaderElection?: boolean | Partial<LeaderElectionOptions>;
  /** Shortcuts: serve /metrics or /healthz+/readyz on 127.0.0.1:<port> (0 = any free port). */
  metricsPort?: number;
  probePort?: number;
  /** `host:port`; wins over the port shortcuts. Absent (and no port) = not served. */
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  /** /metrics over HTTPS for callers the API server authenticates and authorizes (TokenReview + SubjectAccessReview). */
  metricsSecure?: boolean;
  /** `tls.crt`/`tls.key` for secure metrics; default a self-signed certificate. */
  metricsCertDir?: string;
  /** Lowest TLS version (and ciphers) secure metrics accept; default VersionTLS12, Node's ciphers. */
  metricsTls?: MetricsTls;
  logger?: Logger;
  /** prom-client registry for /metrics (default: the global one). */
  registry?: Registry;
  /** How long in-flight reconciles may run on shutdown (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
  /** Events' `reportingInstance` (e.g. the pod name); default POD_NAME or the name. */
  instance?: string;
  informer?: InformerCacheOptions['informer'];
  /** Use this client instead of building one (tests that count requests). */
  client?: RestKubeClient;
  /**
   * Another manager whose connection, informers and servers this one uses (several operators in
   * one process, `runOperators`): it opens no connection of its own (its client and Lease writes
   * go over the host's, as `fieldManager`), its cache takes the informers of kinds another member
   * caches alike from the host's pool, and it serves nothing: the host's /readyz covers every
   * member's informers, and `setMetricsTls` goes to the host's /metrics. Leader election,
   * controllers, Events and the logger stay this manager's own.
   */
  host?: Manager;
  /**
   * Longest the controllers wait, once their own informers synced, for the rest of the process's
   * (see `cachesSynced`); default 10 s.
   */
  cachesWaitMs?: number;
}

const CACHES_WAIT_MS = 10_000;

/** Each registry's default metrics (`processMetrics`), registered once. */
const defaultMetrics = new WeakMap<Registry, Promise<void>>();

/** Turns parsed flags (see `parseManagerOptions`) into manager options. */
export function managerOptionsFromFlags(
  flags: ManagerFlags,
  base: Pick<ManagerOptions, 'name' | 'kubeConfig'> & Partial<ManagerOptions>,
): ManagerOptions {
  return {
    ...base,
    metricsBindAddress: flags.metricsBindAddress,
    metricsSecure: flags.metricsSecure,
    ...(flags.metricsCertDir ? { metricsCertDir: flags.metricsCertDir } : {}),
    metricsTls: { minVersion: flags.metricsTlsMinVersion },
    healthProbeBindAddress: flags.healthProbeBindAddress,
    gracefulShutdownTimeoutMs: flags.gracefulShutdownTimeoutMs,
    ...(flags.namespaces ? { namespaces: flags.namespaces } : {}),
    ...(flags.impersonate ? { impersonate: flags.impersonate } : {}),
    ...(flags.leaderElect
      ? {
          leaderElection: {
            leaseDurationMs: flags.leaseDurationMs,
            renewDeadlineMs: flags.renewDeadlineMs,
            retryPeriodMs: flags.retryPeriodMs,
            ...(flags.leaderElectionId ? { leaseName: flags.leaderElectionId } : {}),
            ...(flags.leaderElectionNamespace ? { namespace: flags.leaderElectionNamespace } : {}),
          },
        }
      : {}),
  };
}

/**
 * Runs controllers over shared informers, with optional leader election, probes, metrics and
 * graceful shutdown. Informers run on every replica (a standby has a warm cache); controllers run
 * only on the leader and stop the moment leadership is lost.
 */
export class Manager {
  readonly name: string;
  readonly client: RestKubeClient;
  readonly cache: InformerCache;
  readonly recorder: EventRecorder;
  readonly registry: Registry;
  readonly log: Logger;
  private readonly controllers: Controller[] = [];
  private ownCrds: CrdSchemaWatch | undefined;
  private readonly elector: LeaderElector | undefined;
  private readonly apiServer: ApiServerCheck;
  private readonly ownsClient: boolean;
  private readonly host: Manager | undefined;
  /** The managers on this one (`host`), and the informers their caches share. */
  private readonly members: Manager[] = [];
  private readonly informerPool = new Map<string, Informer>();
  private readonly optionalWatchPool = new Map<string, OptionalKindWatch>();
  private readonly servers: { kind: 'metrics' | 'probes'; server: HttpEndpoint }[] = [];
  private readonly addresses = new Map<'metrics' | 'probes', Endpoint>();
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private leading = false;
  private metricsTls: MetricsTls;
  private stopped: Promise<void> | undefined;
  private resolveDone: (() => void) | undefined;
  private processSynced: Promise<void> | undefined;
  readonly done: Promise<void>;

  constructor(private readonly opts: ManagerOptions) {
    this.name = opts.name;
    this.registry = opts.registry ?? globalRegistry;
    this.metricsTls = opts.metricsTls ?? { minVersion: 'VersionTLS12' };
    this.log = opts.logger ?? createLogger({ name: opts.name });
    const fieldManager = opts.fieldManager ?? `stackops-${opts.name}`;
    const clientOpts = {
      fieldManager,
      registry: this.registry,
      ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
    };
    this.host = opts.host;
    this.ownsClient = !opts.client && !opts.host;
    this.client =
      opts.client ??
      (opts.host
        ? shareConnection(opts.host.client, { fieldManager, registry: this.registry })
        : createKubeClient(opts.kubeConfig, clientOpts));
    this.cache = new InformerCache(this.client, {
      ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
      logger: this.log,
      metrics: informerMetrics(this.registry),
      ...(opts.informer ? { informer: opts.informer } : {}),
      ...(opts.host ? { pool: opts.host.informerPool, optionalPool: opts.host.optionalWatchPool } : {}),
    });
    opts.host?.members.push(this);
    // A host's own client is mostly idle: its members' answers (same connection) count too.
    this.apiServer = new ApiServerCheck(this.client, {
      lastAnsweredAt: () => {
        const times = [this, ...this.members].flatMap((m) => m.client.lastAnsweredAt ?? []);
        return times.length ? Math.max(...times) : undefined;
      },
    });
    this.recorder = new KubeEventRecorder(this.client, {
      component: opts.name,
      instance: opts.instance ?? process.env['POD_NAME'] ?? opts.name,
      logger: this.log,
    });
    if (opts.leaderElection) {
      const le = opts.leaderElection === true ? {} : opts.leaderElection;
      const renewDeadlineMs = le.renewDeadlineMs ?? 10_000;
      // One hung request must not cost the lease: cap each at half the renew deadline.
      const leOpts = { ...clientOpts, requestTimeoutMs: Math.max(renewDeadlineMs / 2, 1000) };
      const leClient = opts.host
        ? shareConnection(opts.host.client, leOpts)
        : createKubeClient(opts.kubeConfig, leOpts);
      const status = leaderMetrics(opts.name, this.registry);
      this.elector = new LeaderElector(
        leClient,
        {
          ...le,
          leaseName: le.leaseName ?? `${opts.name}-leader`,
          namespace: le.namespace ?? process.env['POD_NAMESPACE'] ?? 'default',
        },
        {
          onStartedLeading: () => this.onLeading(true),
          onStoppedLeading: () => this.onLeading(false),
          onStatus: (l) => status.leading(l),
          logger: this.log,
        },
      );
    }
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /**
   * The TLS settings of secure metrics from now on (network-addons: its NetworkAddonsConfig's
   * tlsSecurityProfile). Before start, they replace the configured ones; `configuredMetricsTls`
   * stays what the flags said.
   */
  get configuredMetricsTls(): MetricsTls {
    if (this.host) return this.host.configuredMetricsTls;
    return this.opts.metricsTls ?? { minVersion: 'VersionTLS12' };
  }

  setMetricsTls(settings: MetricsTls): void {
    if (this.host) {
      this.host.setMetricsTls(settings);
      return;
    }
    this.metricsTls = settings;
    for (const s of this.servers) if (s.kind === 'metrics') s.server.setTls(settings);
  }

  /** Declares a controller; `.reconcile(fn)` registers it with this manager. */
  controller<T extends KubeObject = KubeObject>(opts: ControllerOptions = {}): ControllerBuilder<T> {
    return new ControllerBuilder<T>(
      opts,
      (c) => {
        this.controllers.push(c as unknown as Controller);
        trackResourceReady(c.name, () => this.cache.list(c.primary), this.registry);
        if (this.state === 'running' && this.shouldReconcile()) void c.start();
      },
      (name) => ({
        client: this.client,
        cache: this.cache,
        recorder: this.recorder,
        logger: this.log,
        metrics: controllerMetrics(name, this.registry),
        crdSchemas: () => this.ownCrds,
        cachesSynced: () => this.cachesSynced(),
      }),
    );
  }

  /**
   * Watches the operator's own CRDs (as its chart installs them: `buildCrd` of its definitions)
   * and gives every pipeline controller of those kinds a Warning condition and Event while the
   * installed schema is another (ADR 0037); the message tells to re-apply `chart`'s crds/. The
   * watch starts once the process's caches synced (`cachesSynced`): its verdicts are no part of
   * readiness, and its CRDs (built from `crds` then) and their watches would only hold back the
   * informers' own.
   */
  watchOwnCrds(crds: () => readonly object[], chart: string): CrdSchemaWatch {
    const fix = `re-apply the ${chart} chart's CRDs (kubectl replace -f charts/${chart}/crds/)`;
    this.ownCrds = new CrdSchemaWatch(this.client, crds, { fix, logger: this.log });
    if (this.state === 'running') this.startOwnCrdsWhenSynced();
    return this.ownCrds;
  }

  /**
   * Starts the informers declared so far, and from now on each one as it is declared, before
   * `start()`: their watch-lists then go out while the operator is still registering controllers
   * (CPU) and the API server answers meanwhile, instead of all after it. Controllers are unaffected:
   * they subscribe and enqueue what is cached when they start.
   */
  startInformers(): void {
    if (this.state === 'new') this.cache.start();
  }

  /** Starts servers, informers, and either the controllers or the campaign for leadership. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`manager ${this.name} already ${this.state}`);
    this.state = 'running';
    await this.startServers();
    this.cache.start();
    if (!this.host) {
      // When this process can first answer /readyz (ms since it started): its start-up time, as
      // the umbrella test compares it between one process per operator and all in one.
      void Promise.all([this, ...this.members].map((m) => m.cache.waitForSync())).then(
        () => this.log.info({ uptimeMs: Math.round(performance.now()) }, 'caches synced'),
        () => undefined,
      );
    }
    this.startOwnCrdsWhenSynced();
    if (this.elector) this.elector.start();
    else this.onLeading(true);
    this.log.info(
      { leaderElection: Boolean(this.elector), controllers: this.controllers.map((c) => c.name) },
      'manager started',
    );
  }

  private startOwnCrdsWhenSynced(): void {
    const own = this.ownCrds;
    if (!own) return;
    // In a turn of its own, like a controller's run: building the CRDs takes a few ms that the
    // first probe after the sync need not wait for.
    this.cachesSynced()
      .then(nextTurn)
      .then(
        () => {
          if (this.state === 'running') own.start();
        },
        () => undefined,
      );
  }

  /**
   * Resolves once every informer of the process has synced — this manager's, or its host's and
   * every member's, as declared at the first call — or `cachesWaitMs` after that call. Controllers
   * start their workers only then, as controller-runtime starts its controllers once the manager's
   * cache has synced: first passes run while other informers still parse their watch-lists would
   * take the one thread from them and hold back readiness (ADR 0061). The bound keeps an informer
   * that cannot sync (say its list is forbidden) from stopping every controller; /readyz names it.
   */
  cachesSynced(): Promise<void> {
    if (this.host) return this.host.cachesSynced();
    if (!this.processSynced) {
      this.processSynced = this.waitForProcessCaches();
      void this.processSynced.then(nextTurn).then(() => this.processMetrics());
    }
    return this.processSynced;
  }

  /**
   * Registers prom-client's process and Node.js metrics on this manager's registry, once per
   * registry: after the process's caches synced (see `cachesSynced`) or at the first scrape,
   * whichever comes first. Loading them is start-up work no probe waits for (ADR 0065).
   */
  private processMetrics(): Promise<void> {
    let registered = defaultMetrics.get(this.registry);
    if (!registered) {
      // prom-client samples event-loop delay on a 10 ms timer by default: 100 wake-ups a second,
      // ~1 s of CPU per 5 idle minutes (tools/bench). Once a second was still a quarter of an idle
      // process's CPU; every 5 s, a block of 5 s or more always shows, a shorter one with a chance
      // in proportion to its length (ADR 0062).
      registered = collectDefaultMetrics({
        register: this.registry,
        eventLoopMonitoringPrecision: 5000,
      }).catch((err: unknown) => this.log.warn({ err }, 'process metrics not registered'));
      defaultMetrics.set(this.registry, registered);
    }
    return registered;
  }

  private async waitForProcessCaches(): Promise<void> {
    const waitMs = this.opts.cachesWaitMs ?? CACHES_WAIT_MS;
    const deadline = AbortSignal.timeout(waitMs);
    await Promise.all([this, ...this.members].map((m) => m.cache.waitForSync(undefined, deadline)));
    if (!deadline.aborted) return;
    const unsynced = this.processInformers().filter((i) => !i.synced());
    if (unsynced.length)
      this.log.warn(
        { unsynced: [...new Set(unsynced.map((i) => i.kind.kind))], waitedMs: waitMs },
        'starting controllers although some informers have not synced',
      );
  }

  /** Leader (or no election) and running. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The informers of this manager and of every manager on it. */
  private processInformers(): Informer[] {
    return [this, ...this.members].flatMap((m) => m.cache.all());
  }

  /** Undefined when ready; else why not (stopped, a member not started yet, informers not synced). */
  readiness(): string | undefined {
    if (this.state !== 'running') return `manager ${this.state}`;
    const waiting = this.members.filter((m) => m.state !== 'running').map((m) => m.name);
    if (waiting.length) return `operators not started: ${waiting.join(', ')}`;
    // A host is ready once the informers of every manager on it are.
    const unsynced = this.processInformers()
      .filter((i) => !i.synced() || !i.running)
      .map((i) => i.kind.kind);
    if (unsynced.length) return `informers not synced: ${unsynced.join(', ')}`;
    return undefined;
  }

  /** `readiness()`, then whether the API server answers: a cache nobody can refresh is stale. */
  async ready(): Promise<string | undefined> {
    return this.readiness() ?? (await this.apiServer.check());
  }

  /** Where /metrics or the probes listen (after start). */
  address(kind: 'metrics' | 'probes'): Endpoint | undefined {
    return this.addresses.get(kind);
  }

  /** The manager's controllers, by name. */
  controllerNamed(name: string): Controller | undefined {
    return this.controllers.find((c) => c.name === name);
  }

  /**
   * Graceful shutdown: stop taking work, give in-flight reconciles until the deadline, release the
   * lease (so a standby takes over at once), stop informers and servers.
   */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  /**
   * Stops gracefully on SIGTERM/SIGINT, then exits 0 (1 if the shutdown failed); a second signal
   * exits at once. Returns a function that removes the handlers.
   */
  stopOnSignals(
    opts: { signals?: NodeJS.Signals[]; exit?: (code: number) => void; stop?: () => Promise<void> } = {},
  ): () => void {
    const signals = opts.signals ?? ['SIGTERM', 'SIGINT'];
    const stop = opts.stop ?? (() => this.stop());
    const exit = opts.exit ?? ((code: number) => process.exit(code));
    let received = false;
    const handler = (sig: NodeJS.Signals): void => {
      if (received) {
        exit(1);
        return;
      }
      received = true;
      this.log.info({ signal: sig }, 'shutting down');
      stop().then(
        () => exit(0),
        (err: unknown) => {
          this.log.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    };
    for (const s of signals) process.on(s, handler);
    return () => {
      for (const s of signals) process.off(s, handler);
    };
  }

  private shouldReconcile(): boolean {
    return this.leading;
  }

  private onLeading(leading: boolean): void {
    this.leading = leading;
    if (this.state !== 'running') return;
    if (leading) {
      for (const c of this.controllers) void c.start();
    } else {
      // Leadership lost: another replica may already reconcile, so stop at once.
      for (const c of this.controllers) void c.stop(0);
    }
  }

  private async shutdown(): Promise<void> {
    if (this.state === 'new') this.state = 'stopped';
    if (this.state === 'stopped') {
      this.resolveDone?.();
      return;
    }
    this.state = 'stopping';
    const deadline = this.opts.gracefulShutdownTimeoutMs ?? 30_000;
    const results = await Promise.all(this.controllers.map((c) => c.stop(deadline)));
    const abandoned = results.flatMap((r) => r.abandoned);
    if (abandoned.length) this.log.warn({ abandoned }, 'reconciles still running at the shutdown deadline');
    this.leading = false;
    await this.elector?.stop();
    await this.ownCrds?.stop();
    await this.cache.stop();
    await Promise.all(this.servers.map((s) => s.server.stop()));
    if (this.ownsClient) this.client.close();
    this.state = 'stopped';
    this.log.info('manager stopped');
    this.resolveDone?.();
  }

  private async startServers(): Promise<void> {
    const metrics =
      parseEndpoint(this.opts.metricsBindAddress) ??
      (this.opts.metricsPort !== undefined ? { host: '127.0.0.1', port: this.opts.metricsPort } : undefined);
    const probes =
      parseEndpoint(this.opts.healthProbeBindAddress) ??
      (this.opts.probePort !== undefined ? { host: '127.0.0.1', port: this.opts.probePort } : undefined);
    if (metrics) {
      const serve: Route = async (_req, res) => {
        await this.processMetrics();
        const body = await this.registry.metrics();
        res.writeHead(200, { 'Content-Type': this.registry.contentType });
        res.end(body);
      };
      const secure = this.opts.metricsSecure === true;
      const server = new HttpEndpoint(
        metrics,
        { '/metrics': secure ? authorizedRoute(this.client, serve, { logger: this.log }) : serve },
        secure ? await servingCertificate(this.opts.metricsCertDir, metrics.host) : undefined,
        this.metricsTls,
      );
      this.servers.push({ kind: 'metrics', server });
      this.addresses.set('metrics', await server.start());
    }
    if (probes) {
      const server = new HttpEndpoint(probes, {
        '/healthz': probe(() => (this.state === 'stopped' ? 'stopped' : undefined)),
        '/readyz': asyncProbe(() => this.ready()),
      });
      this.servers.push({ kind: 'probes', server });
      this.addresses.set('probes', await server.start());
    }
  }
}
