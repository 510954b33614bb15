import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CertificatePair } from '../metrics/self-signed.js';
import { type Endpoint, HttpEndpoint, parseEndpoint, type Route, servingCertificate } from './server.js';

/** Fills in defaults on a copy of the object it is given (the object as the user sent it). */
export type Defaulter = (obj: Record<string, unknown>) => void;

/** One operation of an RFC 6902 JSON Patch. */
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

const pointer = (path: readonly string[]): string =>
  `/${path.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON Patch turning `before` into `after`: objects key by key, anything else (arrays,
 * scalars) replaced whole where it differs.
 */
export function jsonPatch(before: unknown, after: unknown, path: string[] = []): PatchOperation[] {
  if (isObject(before) && isObject(after)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(before)) {
      if (!(key in after)) ops.push({ op: 'remove', path: pointer([...path, key]) });
    }
    for (const [key, value] of Object.entries(after)) {
      if (!(key in before)) ops.push({ op: 'add', path: pointer([...path, key]), value });
      else ops.push(...jsonPatch(before[key], value, [...path, key]));
    }
    return ops;
  }
  return JSON.stringify(before) === JSON.stringify(after)
    ? []
    : [{ op: 'replace', path: pointer(path), value: after }];
}

interface AdmissionReview {
  apiVersion?: string;
  kind?: string;
  request?: { uid?: string; object?: unknown };
}

async function readBody(req: IncomingMessage, limit = 3 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A mutating admission webhook route (admission.k8s.io/v1 AdmissionReview): runs `defaulter` on
 * a copy of `request.object` and answers allowed, with the difference as a JSON Patch. It never
 * refuses: validation stays in the CRD schema and its CEL rules, so the webhook being down
 * (failurePolicy Ignore) only leaves the object as written.
 */
export function defaultingRoute(defaulter: Defaulter, logger?: Logger): Route {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    let review: AdmissionReview;
    try {
      review = JSON.parse(await readBody(req)) as AdmissionReview;
    } catch (err) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`invalid AdmissionReview: ${String(err)}\n`);
      return;
    }
    const uid = review.request?.uid ?? '';
    const object = review.request?.object;
    const response: Record<string, unknown> = { uid, allowed: true };
    if (isObject(object)) {
      const defaulted = structuredClone(object);
      defaulter(defaulted);
      const patch = jsonPatch(object, defaulted);
      if (patch.length > 0) {
        response['patchType'] = 'JSONPatch';
        response['patch'] = Buffer.from(JSON.stringify(patch)).toString('base64');
        const meta = object['metadata'] as { namespace?: string; name?: string } | undefined;
        logger?.debug(
          { name: meta?.name, namespace: meta?.namespace, patch: patch.map((p) => p.path) },
          'defaulted',
        );
      }
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: review.apiVersion ?? 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response,
      }),
    );
  };
}

/** Where the webhook listens and its certificate: `WEBHOOK_BIND_ADDRESS` and `WEBHOOK_CERT_DIR`. */
export const WEBHOOK_BIND_ADDRESS_ENV = 'WEBHOOK_BIND_ADDRESS';
export const WEBHOOK_CERT_DIR_ENV = 'WEBHOOK_CERT_DIR';

/** `bindAddress` and `certDir` from `WEBHOOK_BIND_ADDRESS` and `WEBHOOK_CERT_DIR` (the chart sets them when `webhook.enabled`). */
export function webhookOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Pick<DefaultingWebhookOptions, 'bindAddress' | 'certDir'> {
  return { bindAddress: env[WEBHOOK_BIND_ADDRESS_ENV], certDir: env[WEBHOOK_CERT_DIR_ENV] };
}

export interface DefaultingWebhookOptions {
  /** `host:port`, `:port` (every interface) or `port`; unset, `''` or `0` = no webhook. */
  bindAddress: string | undefined;
  /** tls.crt and tls.key (e.g. the chart's Secret mounted there); unset: a self-signed certificate. */
  certDir?: string | undefined;
  /** URL path → defaulter, e.g. `/mutate-keystone-openstack-org-v1beta1-keystoneapi`. */
  defaulters: Record<string, Defaulter>;
  logger?: Logger;
}

/** The running webhook server: where it listens and the certificate it serves (the caBundle when self-signed). */
export interface DefaultingWebhook {
  address: Endpoint;
  certificate: CertificatePair;
  stop(): Promise<void>;
}

/**
 * Serves the defaulting webhooks over HTTPS (the API server calls webhooks over TLS only), or
 * nothing when `bindAddress` is off. The API server calls it through the chart's
 * MutatingWebhookConfiguration (a Service, or a URL for an operator outside the cluster).
 */
export async function startDefaultingWebhook(
  opts: DefaultingWebhookOptions,
): Promise<DefaultingWebhook | undefined> {
  const endpoint = parseEndpoint(opts.bindAddress);
  if (!endpoint) return undefined;
  const routes = Object.fromEntries(
    Object.entries(opts.defaulters).map(([path, d]) => [path, defaultingRoute(d, opts.logger)]),
  );
  // Operators in one process (runOperators) read the same WEBHOOK_BIND_ADDRESS: the second one adds
  // its paths to the server the first started instead of failing on a taken port.
  // Port 0 (any free port) is a new server each time.
  const key = `${endpoint.host}:${endpoint.port || `0#${++anyPortServers}`}`;
  let shared = webhookServers.get(key);
  if (!shared) {
    const serving = servingCertificate(opts.certDir || undefined, endpoint.host).then(async (certificate) => {
      const server = new HttpEndpoint(endpoint, shared?.routes ?? {}, certificate);
      return { server, certificate, address: await server.start() };
    });
    shared = { routes: {}, users: 0, serving };
    webhookServers.set(key, shared);
  }
  const taken = Object.keys(routes).filter((path) => path in (shared?.routes ?? {}));
  if (taken.length) throw new Error(`webhook ${key}: paths already served: ${taken.join(', ')}`);
  Object.assign(shared.routes, routes);
  shared.users++;
  const { server, certificate, address } = await shared.serving;
  opts.logger?.info(
    { address: `${address.host}:${address.port}`, paths: Object.keys(routes) },
    'webhook serving',
  );
  const mine = shared;
  let stopped = false;
  return {
    address,
    certificate,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      for (const path of Object.keys(routes)) delete mine.routes[path];
      if (--mine.users > 0) return;
      webhookServers.delete(key);
      await server.stop();
    },
  };
}

let anyPortServers = 0;

/** The webhook servers of this process, by `host:port`, with the paths each serves. */
const webhookServers = new Map<
  string,
  {
    routes: Record<string, Route>;
    users: number;
    serving: Promise<{ server: HttpEndpoint; certificate: CertificatePair; address: Endpoint }>;
  }
>();
