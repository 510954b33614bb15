import { request as plainRequest } from 'node:http';
import { request } from 'node:https';

/** TLS material for the API server: its CA, and the admin client certificate. */
export interface TlsClient {
  ca: string;
  cert: string;
  key: string;
}

export interface HttpResponse {
  status: number;
  body: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Client credentials; without them the server certificate is not verified (self-signed health ports). */
  tls?: TlsClient;
  timeoutMs?: number;
  /** Content type of the body (default application/json), e.g. for server-side apply or a merge patch. */
  contentType?: string;
}

/** One HTTP(S) request with a hard timeout; never throws for HTTP status codes, only for transport errors. */
export function httpRequest(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const parsed = new URL(url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const send = parsed.protocol === 'https:' ? request : plainRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      parsed,
      {
        method: options.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : {
                'content-type': options.contentType ?? 'application/json',
                'content-length': Buffer.byteLength(payload),
              }),
        },
        ...(parsed.protocol === 'https:'
          ? options.tls
            ? { ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key }
            : { rejectUnauthorized: false }
          : {}),
        timeout: options.timeoutMs ?? 5000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${options.timeoutMs ?? 5000} ms: ${url}`)));
    req.on('error', reject);
    req.end(payload);
  });
}
