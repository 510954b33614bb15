import * as http from 'node:http';
import * as https from 'node:https';
import { IdentityError } from './errors.js';

export interface HttpOptions {
  /** PEM CA bundle trusted for https URLs (in addition to nothing else: it replaces the defaults). */
  caBundle?: string;
  /** Per-request timeout in milliseconds (default 30 s). */
  timeoutMs?: number;
}

export interface HttpRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL. */
  url: URL;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Keystone's error body: `{"error": {"code": 404, "title": "Not Found", "message": "..."}}`. */
function keystoneErrorOf(body: unknown): { title?: string; message?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return {};
  const { title, message } = error as { title?: unknown; message?: unknown };
  return {
    title: typeof title === 'string' ? title : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function displayPath(url: URL): string {
  return `${url.pathname}${url.search}`;
}

/**
 * One JSON request over node:http(s) (not fetch: a custom CA bundle needs https.Agent options).
 * Resolves for every HTTP status < 400; rejects with an `IdentityError` otherwise.
 */
export function sendJson(req: HttpRequest, opts: HttpOptions = {}): Promise<HttpResponse> {
  const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const isHttps = req.url.protocol === 'https:';
  const transport = isHttps ? https : http;
  const path = displayPath(req.url);
  return new Promise((resolve, reject) => {
    const fail = (message: string, cause?: unknown) =>
      reject(new IdentityError({ status: 0, method: req.method, path, message, cause }));
    const request = transport.request(
      req.url,
      {
        method: req.method,
        headers,
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        ...(isHttps && opts.caBundle ? { ca: opts.caBundle } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => fail(err.message, err));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const body = parseJson(Buffer.concat(chunks).toString('utf8'));
          if (status >= 400) {
            const { title, message } = keystoneErrorOf(body);
            reject(
              new IdentityError({
                status,
                method: req.method,
                path,
                title: title ?? res.statusMessage,
                message: message ?? res.statusMessage ?? 'request failed',
              }),
            );
            return;
          }
          resolve({ status, headers: res.headers, body });
        });
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no response within ${opts.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)),
    );
    request.on('error', (err) => fail(err.message, err));
    request.end(payload);
  });
}
