import http2, {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type OutgoingHttpHeaders,
  type Settings,
} from 'node:http2';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { type ConnectionOptions, type TLSSocket, connect as tlsConnect } from 'node:tls';

/** A response body; `complete` is false until the whole body arrived (as on node:http's message). */
export type ResponseBody = Readable & { complete?: boolean };

export interface ApiResponse {
  statusCode: number;
  body: ResponseBody;
}

export interface StreamRequest {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body?: string;
  /** Stream idle timeout; the callback gets the error to destroy the stream with. */
  timeout?: { ms: number; error: () => Error };
  signal?: AbortSignal;
}

/** Streams per connection until the server's SETTINGS say otherwise (the RFC's recommended floor). */
const STREAMS_BEFORE_SETTINGS = 100;
/** Receive windows: a LIST of large objects then needs no WINDOW_UPDATE round trips. */
const STREAM_WINDOW = 1 << 20;
const CONNECTION_WINDOW = 16 << 20;
/** How long a connection may take to answer a PING before it counts as dead. */
const PING_TIMEOUT_MS = 10_000;
/**
 * Silence after which a connection is PINGed. Watches last 30–60 min (runtime/watch-timeout.ts), so a
 * connection whose peer vanished without a FIN or RST is found by this, in ~40 s, not by their end.
 */
const KEEPALIVE_MS = 30_000;

export interface Http2PoolTimings {
  /** Silence on a connection before it is PINGed (default 30 s). */
  keepAliveMs?: number;
  /** How long a PING may go unanswered before the connection is destroyed (default 10 s). */
  pingTimeoutMs?: number;
}

interface Connection {
  session: ClientHttp2Session;
  /** Open streams, counted here: nghttp2 would queue a request past the server's limit, and a
   * request queued behind watches (which never end) would wait for ever. */
  active: number;
  /** The server's stream limit as its last SETTINGS said: `session.remoteSettings` asks nghttp2
   * again at every read, and every request reads the limit. */
  limit: number;
}

/**
 * Requests to the API server as HTTP/2 streams, multiplexed over as few TLS connections as its
 * stream limit allows (one, normally). Every informer holds a watch open, and over HTTP/1.1 each
 * of those is a TLS connection of its own: ~0.1 MiB of the operator's memory, a handshake and a
 * connection in the API server, per namespace watched (tools/bench finding 26). A server that does
 * not offer h2 in ALPN gets `undefined` back, and the caller uses HTTP/1.1.
 */
export class Http2Pool {
  private readonly connections: Connection[] = [];
  private opening: Promise<Connection | undefined> | undefined;
  private closed = false;
  /** Set when the server chose HTTP/1.1: not asked again. */
  http1Only = false;

  private readonly keepAliveMs: number;
  private readonly pingTimeoutMs: number;

  constructor(
    private readonly server: URL,
    private readonly tls: ConnectionOptions,
    timings: Http2PoolTimings = {},
  ) {
    this.keepAliveMs = timings.keepAliveMs ?? KEEPALIVE_MS;
    this.pingTimeoutMs = timings.pingTimeoutMs ?? PING_TIMEOUT_MS;
  }

  /** Opens a stream and resolves with its response headers, or undefined if the server has no h2. */
  async request(req: StreamRequest): Promise<ApiResponse | undefined> {
    const conn = await this.acquire();
    if (!conn) return undefined;
    return new Promise<ApiResponse>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = conn.session.request(
          { ':method': req.method, ':path': req.path, ...req.headers },
          { endStream: req.body === undefined, ...(req.signal ? { signal: req.signal } : {}) },
        );
      } catch (err) {
        conn.active--;
        reject(err);
        return;
      }
      const body = stream as ClientHttp2Stream & ResponseBody;
      body.complete = false;
      stream.once('end', () => {
        body.complete = true;
      });
      stream.once('close', () => {
        conn.active--;
        // Closed before any response (connection gone, aborted): reject; a no-op once resolved.
        reject(new Error(`stream closed before a response (code ${stream.rstCode ?? 'none'})`));
      });
      // Stays attached: an error after the response reaches the body's reader as well.
      stream.on('error', reject);
      stream.once('response', (headers) => resolve({ statusCode: Number(headers[':status']), body }));
      if (req.timeout) {
        const { ms, error } = req.timeout;
        stream.setTimeout(ms, () => {
          stream.destroy(error());
          this.checkAlive(conn);
        });
      }
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  /**
   * Opens a connection ahead of the first request, unless one is open or opening. A failure is
   * left to the requests: the next one opens a connection of its own.
   */
  warm(): void {
    if (this.closed || this.http1Only || this.connections.length > 0) return;
    this.open().catch(() => {});
  }

  /** Closes every connection at once (open watches end with a connection error). */
  close(): void {
    this.closed = true;
    for (const c of this.connections.splice(0)) c.session.destroy();
  }

  private async acquire(): Promise<Connection | undefined> {
    for (;;) {
      if (this.closed) throw new Error('client closed');
      // Only usable connections are in the list: one that failed, closed or got GOAWAY left it;
      // one destroyed here (an unanswered PING) leaves it only at its 'close', a tick later.
      const free = this.connections.find((c) => !c.session.destroyed && c.active < c.limit);
      if (free) {
        free.active++;
        return free;
      }
      if (this.http1Only) return undefined;
      const opened = await this.open();
      if (!opened) return undefined;
    }
  }

  /** The connection being opened; callers arriving together (requests, `warm`) share it. */
  private open(): Promise<Connection | undefined> {
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * One PING; no answer in time means the connection is dead: destroying it fails its streams (the
   * watches on it restart on another connection). `answered` runs after a reply.
   */
  private checkAlive(conn: Connection, answered?: () => void): void {
    if (conn.session.destroyed) return;
    const timer = setTimeout(() => conn.session.destroy(), this.pingTimeoutMs);
    const pinged = conn.session.ping((err) => {
      clearTimeout(timer);
      if (err) conn.session.destroy();
      else answered?.();
    });
    if (!pinged) clearTimeout(timer);
  }

  /** PINGs the connection after every `keepAliveMs` without a frame from the server. */
  private keepAlive(conn: Connection): void {
    // The session's timer fires once per silence; it is armed again after each reply.
    conn.session.setTimeout(this.keepAliveMs, () => this.checkAlive(conn, () => this.keepAlive(conn)));
  }

  private async connect(): Promise<Connection | undefined> {
    const socket = await this.tlsSocket();
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      this.http1Only = true;
      return undefined;
    }
    const session = http2.connect(this.server.origin, {
      createConnection: () => socket,
      settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
    });
    const conn: Connection = { session, active: 0, limit: STREAMS_BEFORE_SETTINGS };
    session.on('remoteSettings', (settings) => {
      conn.limit = limitOf(settings);
    });
    const drop = (): void => {
      const i = this.connections.indexOf(conn);
      if (i >= 0) this.connections.splice(i, 1);
    };
    // A connection error reaches each stream on it; the session itself only leaves the pool.
    session.on('error', drop);
    session.on('goaway', drop);
    session.on('close', drop);
    await new Promise<void>((resolve, reject) => {
      const fail = (err?: Error): void => reject(err ?? new Error('connection closed during setup'));
      session.once('remoteSettings', () => {
        session.off('close', fail);
        session.off('error', fail);
        resolve();
      });
      session.once('close', fail);
      session.once('error', fail);
    });
    session.setLocalWindowSize(CONNECTION_WINDOW);
    if (this.closed) {
      session.destroy();
      throw new Error('client closed');
    }
    this.connections.push(conn);
    this.keepAlive(conn);
    return conn;
  }

  private tlsSocket(): Promise<TLSSocket> {
    const { hostname } = this.server;
    const host = hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({
        ...this.tls,
        host,
        port: Number(this.server.port || 443),
        // Node refuses an IP address as SNI; the certificate is still checked against it.
        ...(this.tls.servername || isIP(host) ? {} : { servername: host }),
        ALPNProtocols: ['h2', 'http/1.1'],
      });
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }
}

function limitOf(settings: Settings): number {
  const max = settings.maxConcurrentStreams;
  return max === undefined || max > 2 ** 31 ? STREAMS_BEFORE_SETTINGS : max;
}
