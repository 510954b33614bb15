import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** A tiny HTTP server for probes and metrics; unknown paths get 404. */
export class HttpEndpoint {
  private server: Server | undefined;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly routes: Record<string, Route>,
  ) {}

  async start(): Promise<Endpoint> {
    const server = createServer((req, res) => {
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
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // No host: Node listens on every interface (dual-stack where the pod has IPv6).
      server.listen(this.endpoint.port, this.endpoint.host || undefined, () => resolve());
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
