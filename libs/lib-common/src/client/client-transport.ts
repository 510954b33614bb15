import http, { type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import { type ApiResponse, Http2Pool, type ResponseBody } from './client-http2.js';
import { ApiError, CLIENT_TIMEOUT, CONNECTION_ERROR } from './errors.js';

export type { ApiResponse } from './client-http2.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Path and query, without the server's own path prefix. */
  path: string;
  body?: string;
  contentType?: string;
  /** Socket idle timeout; omit for watches (the informer's watchdog handles silent streams). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Impersonation {
  user: string;
  groups?: string[];
}

interface TlsAndAuth {
  tls: https.AgentOptions;
  headers: Record<string, string>;
}

/**
 * The HTTP layer of the client: @kubernetes/client-node resolves kubeconfig, TLS material and
 * credentials (tokens, exec plugins, in-cluster token files); the requests themselves are HTTP/2
 * streams over one connection (Http2Pool), or — for a plain-HTTP server or one without h2 — go
 * through ONE keep-alive agent per client, so watches and their restarts never leak sockets.
 */
export class Transport {
  readonly server: URL;
  readonly host: string;
  private readonly basePath: string;
  private readonly dynamicAuth: boolean;
  private agent: http.Agent | undefined;
  private http2: Http2Pool | undefined;
  private staticAuth: Promise<TlsAndAuth> | undefined;
  private closed = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly extraHeaders: OutgoingHttpHeaders,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new TypeError('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    this.host = this.server.host;
    this.basePath = this.server.pathname.replace(/\/+$/, '');
    const user = kc.getCurrentUser();
    // Exec plugins and token files rotate credentials: ask client-node on every request (it caches).
    this.dynamicAuth = Boolean(user?.exec || user?.authProvider);
  }

  /** Sends a request and resolves with the response (any status) and its body stream. */
  async open(req: HttpRequest): Promise<ApiResponse> {
    if (this.closed) throw new ApiError({ code: 0, reason: CONNECTION_ERROR, message: 'client closed' });
    const auth = await this.auth();
    const headers: OutgoingHttpHeaders = {
      Accept: 'application/json',
      ...auth.headers,
      ...this.extraHeaders,
    };
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    if (this.server.protocol === 'https:') {
      // undefined: the server has no h2 (the pool remembers it), HTTP/1.1 below.
      const res = await this.pool(auth)
        .request({
          method: req.method,
          path: `${this.basePath}${req.path}`,
          headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          ...(req.timeoutMs !== undefined
            ? { timeout: { ms: req.timeoutMs, error: () => timeoutError(req) } }
            : {}),
          ...(req.signal ? { signal: req.signal } : {}),
        })
        .catch((err: unknown) => {
          throw connectionError(err, req);
        });
      if (res) return res;
    }
    return this.openHttp1(req, auth, headers);
  }

  private openHttp1(req: HttpRequest, auth: TlsAndAuth, headers: OutgoingHttpHeaders): Promise<ApiResponse> {
    const agent = this.agentFor(auth.tls);
    const mod = this.server.protocol === 'http:' ? http : https;
    return new Promise<ApiResponse>((resolve, reject) => {
      const r = mod.request(
        {
          protocol: this.server.protocol,
          hostname: this.server.hostname,
          port: this.server.port || (this.server.protocol === 'http:' ? 80 : 443),
          method: req.method,
          path: `${this.basePath}${req.path}`,
          headers,
          agent,
          ...(req.signal ? { signal: req.signal } : {}),
        },
        (res) => resolve({ statusCode: res.statusCode ?? 0, body: res }),
      );
      r.on('error', (err) => reject(connectionError(err, req)));
      if (req.timeoutMs !== undefined) r.setTimeout(req.timeoutMs, () => r.destroy(timeoutError(req)));
      r.end(req.body);
    });
  }

  /**
   * Starts the TLS handshake to an HTTPS API server before the first request needs it, so it
   * overlaps what the caller does meanwhile. Errors are left to the requests.
   */
  preconnect(): void {
    if (this.closed || this.server.protocol !== 'https:') return;
    this.auth().then(
      (auth) => {
        if (!this.closed) this.pool(auth).warm();
      },
      () => {},
    );
  }

  /** The HTTP/2 connections, made on first use with the TLS options of the credentials. */
  private pool(auth: TlsAndAuth): Http2Pool {
    this.http2 ??= new Http2Pool(this.server, sharedTls(auth.tls));
    return this.http2;
  }

  /** Closes the connections and refuses new requests. */
  close(): void {
    this.closed = true;
    this.http2?.close();
    this.agent?.destroy();
  }

  private auth(): Promise<TlsAndAuth> {
    if (this.dynamicAuth) return resolveAuth(this.kc);
    // A failure is not cached: the next request tries again.
    this.staticAuth ??= resolveAuth(this.kc).catch((err: unknown) => {
      this.staticAuth = undefined;
      throw err;
    });
    return this.staticAuth;
  }

  private agentFor(tls: https.AgentOptions): http.Agent {
    if (this.agent) return this.agent;
    const common = { keepAlive: true, keepAliveMsecs: 30_000, scheduling: 'lifo' as const };
    this.agent =
      this.server.protocol === 'http:'
        ? new http.Agent(common)
        : new https.Agent({ ...common, ...sharedTls(tls) });
    return this.agent;
  }
}

async function resolveAuth(kc: KubeConfig): Promise<TlsAndAuth> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  if (opts.auth) headers['Authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const tls: https.AgentOptions = {};
  if (opts.ca) tls.ca = opts.ca;
  if (opts.cert) tls.cert = opts.cert;
  if (opts.key) tls.key = opts.key;
  if (opts.pfx) tls.pfx = opts.pfx;
  if (opts.passphrase) tls.passphrase = opts.passphrase;
  if (opts.servername) tls.servername = opts.servername;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  return { tls, headers };
}

/**
 * The agent's TLS options with the CA, certificate and key parsed once: given them raw, every new
 * connection (each watch holds one) builds its own SecureContext — parsing the PEMs again and
 * holding another copy (tools/bench: ~1 % of the CPU of 200 KeystoneAPIs).
 */
export function sharedTls(tls: https.AgentOptions): https.AgentOptions {
  const { ca, cert, key, pfx, passphrase, ...rest } = tls;
  if (!ca && !cert && !key && !pfx) return tls;
  return {
    ...rest,
    secureContext: createSecureContext({
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(pfx ? { pfx } : {}),
      ...(passphrase ? { passphrase } : {}),
    }),
  };
}

/** Request headers that make the API server act as another user (Kubernetes impersonation). */
export function impersonationHeaders(imp: Impersonation | undefined): OutgoingHttpHeaders {
  if (!imp) return {};
  const headers: OutgoingHttpHeaders = { 'Impersonate-User': imp.user };
  // One header line per group: joining them with commas would make one group named "a,b".
  if (imp.groups?.length) headers['Impersonate-Group'] = [...imp.groups];
  return headers;
}

/** The identity of a ServiceAccount as the API server authenticates it. */
export function serviceAccountUser(namespace: string, name: string): Impersonation {
  return {
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

function timeoutError(req: HttpRequest): ApiError {
  return new ApiError({
    code: 0,
    reason: CLIENT_TIMEOUT,
    message: `no response within ${req.timeoutMs} ms`,
    verb: req.method,
    path: req.path,
  });
}

function connectionError(err: unknown, req: HttpRequest): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError({
    code: 0,
    reason: CONNECTION_ERROR,
    message,
    verb: req.method,
    path: req.path,
    cause: err,
  });
}

/** Reads a whole response body as text. */
export function readBody(res: ApiResponse, req: HttpRequest): Promise<string> {
  const body: ResponseBody = res.body;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (c: Buffer) => chunks.push(c));
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    body.on('error', (err) => reject(connectionError(err, req)));
    // A stream whose connection went away can close without an error; a no-op after 'end'.
    body.on('close', () => reject(connectionError(new Error('response closed before its end'), req)));
  });
}
