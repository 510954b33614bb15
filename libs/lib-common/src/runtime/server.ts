import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, Server as TlsServer } from 'node:https';
import { type AddressInfo, BoundSocket, isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { type CertificatePair, selfSignedCertificate } from '../metrics/self-signed.js';
import { type MetricsTls, nodeTlsOptions } from '../metrics/tls.js';

export type Check = () => string | undefined;

export interface Endpoint {
  /**
   * Host to bind. `''` means every interface, as `:8081` does in controller-runtime: kubelet's
   * probes and Prometheus dial the pod IP. A bare port keeps the 127.0.0.1 default.
   */
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * Parses `host:port`, `:port` (every interface) or `port` (`defaultHost`); `0`/`` disables
 * (returns undefined).
 */
export function parseEndpoint(value: string | undefined, defaultHost = '127.0.0.1'): Endpoint | undefined {
  if (value === undefined || value === '' || value === '0') return undefined;
  const i = value.lastIndexOf(':');
  const host = i < 0 ? defaultHost : value.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  const port = Number(i < 0 ? value : value.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`invalid address "${value}"`);
  return { host, port };
}

/** Serves a check as a probe: 200 `ok`, or 500 with the failure. */
export function probe(check: Check): Route {
  return (_req, res) => {
    const failure = check();
    res.writeHead(failure ? 500 : 200, { 'Content-Type': 'text/plain' });
    res.end(failure ? `${failure}\n` : 'ok\n');
  };
}

/** A tiny HTTP (or, given a certificate, HTTPS) server for probes and metrics; unknown paths get 404. */
export class HttpEndpoint {
  private server: Server | undefined;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly routes: Record<string, Route>,
    private readonly tls?: CertificatePair,
    private tlsSettings: MetricsTls = { minVersion: 'VersionTLS12' },
  ) {}

  /**
   * Changes the minimum version and ciphers for connections from now on (open ones keep theirs):
   * network-addons follows the NetworkAddonsConfig's tlsSecurityProfile without a restart.
   */
  setTls(settings: MetricsTls): void {
    this.tlsSettings = settings;
    const server = this.server;
    if (this.tls && server instanceof TlsServer)
      server.setSecureContext({ cert: this.tls.cert, key: this.tls.key, ...nodeTlsOptions(settings) });
  }

  async start(): Promise<Endpoint> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const route = this.routes[path];
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      Promise.resolve(route(req, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(String(err));
      });
    };
    const server: Server = this.tls
      ? createTlsServer(
          { cert: this.tls.cert, key: this.tls.key, ...nodeTlsOptions(this.tlsSettings) },
          handler,
        )
      : createServer(handler);
    this.server = server;
    const { host, port } = this.endpoint;
    // An address is bound as is: `listen(port, host)` resolves even an address through dns.lookup,
    // whose result check compiles node's IPv6 pattern, ~5 ms of every start on 127.0.0.1. (A node
    // 24 older than BoundSocket listens as before.)
    const bound =
      isIP(host) && typeof BoundSocket === 'function' ? new BoundSocket({ host, port }) : undefined;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (bound) server.listen(bound, () => resolve());
      // No host: Node listens on every interface (dual-stack where the pod has IPv6).
      else server.listen(port, host || undefined, () => resolve());
    });
    // The address actually bound (`::` or `0.0.0.0` for every interface), and the port picked for 0.
    const addr = server.address() as AddressInfo;
    return { host: addr.address, port: addr.port };
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const TokenReviewKind: KindRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
};
const SubjectAccessReviewKind: KindRef = {
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
};

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

export interface AuthorizedRouteOptions {
  /** How long an allowed token is trusted without a new review (default 60 s; refusals 2 s). */
  cacheTtlMs?: number;
  logger?: Logger;
}

/**
 * Guards a route as controller-runtime's secure metrics serving does: the caller's bearer token
 * is authenticated with a TokenReview, then the user must be allowed `get` on the non-resource
 * path (a SubjectAccessReview), e.g. by a ClusterRole with `nonResourceURLs: ["/metrics"]`.
 * 401 without a valid token, 403 when not allowed. Decisions are cached per token hash.
 */
export function authorizedRoute(client: KubeClient, route: Route, opts: AuthorizedRouteOptions = {}): Route {
  const ttl = opts.cacheTtlMs ?? 60_000;
  const decisions = new Map<string, { status: 200 | 401 | 403; until: number }>();
  const decide = async (token: string, path: string): Promise<200 | 401 | 403> => {
    const review = await client.create<KubeObject & { status?: TokenReviewStatus }>(TokenReviewKind, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token },
    } as KubeObject);
    const user = review.status?.authenticated ? review.status.user : undefined;
    if (!user?.username) return 401;
    const sar = await client.create<KubeObject & { status?: { allowed?: boolean } }>(
      SubjectAccessReviewKind,
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups ? { groups: user.groups } : {}),
          ...(user.extra ? { extra: user.extra } : {}),
          nonResourceAttributes: { path, verb: 'get' },
        },
      } as KubeObject,
    );
    return sar.status?.allowed ? 200 : 403;
  };
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let status: 200 | 401 | 403 = 401;
    if (token) {
      const key = `${path} ${createHash('sha256').update(token).digest('hex')}`;
      const now = Date.now();
      const cached = decisions.get(key);
      if (cached && cached.until > now) status = cached.status;
      else {
        status = await decide(token, path);
        if (decisions.size > 1000) decisions.clear();
        // A refusal is kept briefly only, so a binding just granted works within seconds.
        decisions.set(key, { status, until: now + (status === 200 ? ttl : Math.min(ttl, 2_000)) });
      }
    }
    if (status === 200) return route(req, res);
    opts.logger?.debug({ path, status }, 'metrics request refused');
    res.writeHead(status, { 'Content-Type': 'text/plain' });
    res.end(status === 401 ? 'Unauthorized\n' : 'Forbidden\n');
  };
}

/**
 * The serving certificate: `tls.crt`/`tls.key` from `certDir` when given (e.g. a cert-manager
 * Secret mounted there), else a self-signed one for this host, `localhost` and the bound address.
 */
export async function servingCertificate(certDir: string | undefined, host = ''): Promise<CertificatePair> {
  if (certDir) {
    const [cert, key] = await Promise.all([
      readFile(join(certDir, 'tls.crt'), 'utf8'),
      readFile(join(certDir, 'tls.key'), 'utf8'),
    ]);
    return { cert, key };
  }
  const hosts = [
    hostname(),
    'localhost',
    '127.0.0.1',
    ...(isIP(host) && host !== '0.0.0.0' && host !== '::' ? [host] : []),
  ];
  return selfSignedCertificate([...new Set(hosts)]);
}

const SelfSubjectReviewKind: KindRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
};

export interface ApiServerCheckOptions {
  /** A request older than this is repeated on the next probe (default 5 s). */
  maxAgeMs?: number;
  /** A request slower than this counts as unreachable (default 3 s). */
  timeoutMs?: number;
  /**
   * When the API server last answered this operator's other requests with a 2xx: an answer
   * younger than `maxAgeMs` proves the same as a review (reachable, this identity authenticated),
   * so a probe right after the informers' first LISTs sends nothing.
   */
  lastAnsweredAt?: () => number | undefined;
}

/**
 * Whether the API server answers this operator, for /readyz: a SelfSubjectReview (every
 * authenticated identity may create one, so it needs no RBAC and reads nothing). The last answer
 * is reused for `maxAgeMs` so frequent probes cost one request at most per period.
 */
export class ApiServerCheck {
  private last: { at: number; failure: string | undefined } | undefined;
  private inflight: Promise<void> | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: ApiServerCheckOptions = {},
  ) {}

  /** Undefined when the API server answered recently; else why not. */
  async check(): Promise<string | undefined> {
    const maxAge = this.opts.maxAgeMs ?? 5_000;
    const answered = this.opts.lastAnsweredAt?.();
    if (answered !== undefined && Date.now() - answered < maxAge) return undefined;
    if (!this.last || Date.now() - this.last.at >= maxAge) {
      this.inflight ??= this.refresh().finally(() => {
        this.inflight = undefined;
      });
      await this.inflight;
    }
    return this.last?.failure;
  }

  private async refresh(): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 3_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([
        this.client.create(SelfSubjectReviewKind, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
          metadata: {},
        }),
        timeout,
      ]);
      this.last = { at: Date.now(), failure: undefined };
    } catch (err) {
      this.last = {
        at: Date.now(),
        failure: `API server unreachable: ${err instanceof Error ? err.message : String(err)}`,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Serves an async check as a probe: 200 `ok`, or 500 with the failure. */
export function asyncProbe(check: () => Promise<string | undefined>): Route {
  return async (_req, res) => {
    const failure = await check();
    res.writeHead(failure ? 500 : 200, { 'Content-Type': 'text/plain' });
    res.end(failure ? `${failure}\n` : 'ok\n');
  };
}
