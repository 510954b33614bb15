import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  type ClientMetrics,
  clientMetrics,
  NO_RESPONSE,
  RequestCounter,
  type Verb,
} from './client-metrics.js';
import {
  type ApiResponse,
  type HttpRequest,
  type Impersonation,
  impersonationHeaders,
  readBody,
  Transport,
} from './client-transport.js';
import { streamEvents } from './client-watch.js';
import { ApiError, apiErrorFromResponse } from './errors.js';
import { apiVersionOf, type KindRef, resourcePath } from './kinds.js';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectList,
  ObjectRef,
  PatchType,
  WatchEvent,
  WatchOptions,
} from './types.js';

export interface KubeClientOptions {
  /** The SSA field manager and the `fieldManager` of every write: `stackops-<name>-operator`. */
  fieldManager: string;
  /** Act as another identity, e.g. the operator chart's ServiceAccount (see `serviceAccountUser`). */
  impersonate?: Impersonation;
  /** Socket idle timeout of non-watch requests (default 30 s). */
  requestTimeoutMs?: number;
  /** Where `rest_client_requests_total` is registered (default: prom-client's global registry). */
  registry?: Registry;
  userAgent?: string;
}

/** The client as `createKubeClient` builds it: the `KubeClient` contract plus counters and `close`. */
export interface RestKubeClient extends KubeClient {
  /** Requests issued by this client, by verb and response code. */
  readonly requests: RequestCounter;
  /** `host:port` of the API server. */
  readonly host: string;
  /** When (`Date.now()`) the API server last answered one of this client's requests with a 2xx. */
  readonly lastAnsweredAt?: number | undefined;
  /** Starts connecting to the API server before the first request (start-up); errors are the requests'. */
  preconnect(): void;
  /** Closes idle keep-alive connections; in-flight watches end when their signals abort. */
  close(): void;
}

const contentTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

function requireNamespace(kind: KindRef, namespace: string | undefined, what: string): void {
  if (kind.namespaced && !namespace) throw new TypeError(`${what} ${kind.kind}: a namespace is required`);
}

function nameOf(obj: KubeObject, kind: KindRef): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError(`${kind.kind}: metadata.name is required`);
  return name;
}

/** Fills apiVersion/kind, which list responses leave out of their items. */
function withTypeMeta<T extends KubeObject>(kind: KindRef, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  return obj;
}

class RestClient implements RestKubeClient {
  readonly requests = new RequestCounter();
  lastAnsweredAt: number | undefined;
  readonly fieldManager: string;
  readonly host: string;
  private readonly transport: Transport;
  private readonly metrics: ClientMetrics;
  private readonly timeoutMs: number;

  constructor(kc: KubeConfig | Transport, opts: KubeClientOptions) {
    if (!opts.fieldManager) throw new TypeError('createKubeClient: fieldManager is required');
    this.fieldManager = opts.fieldManager;
    this.transport =
      kc instanceof Transport
        ? kc
        : new Transport(kc, {
            'User-Agent': opts.userAgent ?? `stackops/${opts.fieldManager}`,
            ...impersonationHeaders(opts.impersonate),
          });
    this.host = this.transport.host;
    this.metrics = clientMetrics(this.host, opts.registry);
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
  }

  async get<T extends KubeObject>(kind: KindRef, ref: ObjectRef): Promise<T | undefined> {
    requireNamespace(kind, ref.namespace, 'get');
    const path = resourcePath(kind, ref.namespace, ref.name);
    const res = await this.send('get', { method: 'GET', path });
    if (res.statusCode === 404) {
      await readBody(res, { method: 'GET', path });
      return undefined;
    }
    return withTypeMeta(kind, await this.decode<T>(res, { method: 'GET', path }));
  }

  async list<T extends KubeObject>(kind: KindRef, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const path =
      resourcePath(kind, opts.namespace) +
      query({
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      });
    const list = await this.json<ObjectList<T>>('list', { method: 'GET', path });
    list.items = (list.items ?? []).map((o) => withTypeMeta(kind, o));
    return list;
  }

  async create<T extends KubeObject>(kind: KindRef, obj: T): Promise<T> {
    const ns = obj.metadata?.namespace;
    requireNamespace(kind, ns, 'create');
    const path = resourcePath(kind, ns) + query({ fieldManager: this.fieldManager });
    const body = JSON.stringify(withTypeMeta(kind, { ...obj }));
    return this.json<T>('create', { method: 'POST', path, body });
  }

  async replace<T extends KubeObject>(
    kind: KindRef,
    obj: T,
    opts: { subresource?: 'status' } = {},
  ): Promise<T> {
    const ns = obj.metadata?.namespace;
    requireNamespace(kind, ns, 'replace');
    const path =
      resourcePath(kind, ns, nameOf(obj, kind), opts.subresource) +
      query({ fieldManager: this.fieldManager });
    const body = JSON.stringify(withTypeMeta(kind, { ...obj }));
    return this.json<T>('update', { method: 'PUT', path, body });
  }

  async apply<T extends KubeObject>(kind: KindRef, obj: T, opts: ApplyOptions = {}): Promise<T> {
    const ns = obj.metadata?.namespace;
    requireNamespace(kind, ns, 'apply');
    const path =
      resourcePath(kind, ns, nameOf(obj, kind), opts.subresource) +
      query({ fieldManager: this.fieldManager, force: opts.force ? 'true' : undefined });
    // JSON is YAML: the apply-patch+yaml content type accepts it as is.
    const body = JSON.stringify(withTypeMeta(kind, { ...obj }));
    return this.json<T>('apply', { method: 'PATCH', path, body, contentType: contentTypes.apply });
  }

  async patch<T extends KubeObject>(
    kind: KindRef,
    ref: ObjectRef,
    patch: unknown,
    type: PatchType,
    opts: { subresource?: 'status' } = {},
  ): Promise<T> {
    requireNamespace(kind, ref.namespace, 'patch');
    const path =
      resourcePath(kind, ref.namespace, ref.name, opts.subresource) +
      query({ fieldManager: this.fieldManager });
    const verb: Verb = type === 'apply' ? 'apply' : 'patch';
    return this.json<T>(verb, {
      method: 'PATCH',
      path,
      body: JSON.stringify(patch),
      contentType: contentTypes[type],
    });
  }

  async delete(kind: KindRef, ref: ObjectRef, opts: DeleteOptions = {}): Promise<boolean> {
    requireNamespace(kind, ref.namespace, 'delete');
    const path = resourcePath(kind, ref.namespace, ref.name);
    const options: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.propagationPolicy) options['propagationPolicy'] = opts.propagationPolicy;
    if (opts.preconditions) options['preconditions'] = opts.preconditions;
    const req: HttpRequest = { method: 'DELETE', path, body: JSON.stringify(options) };
    const res = await this.send('delete', req);
    if (res.statusCode === 404) {
      await readBody(res, req);
      return false;
    }
    await this.decode<unknown>(res, req);
    return true;
  }

  async watch<T extends KubeObject>(
    kind: KindRef,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
  ): Promise<void> {
    const { signal } = opts;
    if (signal?.aborted) return;
    const path =
      resourcePath(kind, opts.namespace) +
      query({
        watch: 'true',
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        sendInitialEvents: opts.sendInitialEvents ? 'true' : undefined,
        allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
        timeoutSeconds: opts.timeoutSeconds,
      });
    const req: HttpRequest = { method: 'GET', path, ...(signal ? { signal } : {}) };
    let res: ApiResponse;
    try {
      res = await this.send('watch', req);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (res.statusCode !== 200) {
      const body = await readBody(res, req).catch(() => '');
      throw apiErrorFromResponse(res.statusCode, body, { verb: 'WATCH', path });
    }
    opts.onOpen?.();
    await streamEvents(res.body, req, onEvent);
  }

  preconnect(): void {
    this.transport.preconnect();
  }

  /** A client over this one's connection with its own field manager and timeout (see `shareConnection`). */
  sharing(opts: KubeClientOptions): RestClient {
    return new RestClient(this.transport, opts);
  }

  close(): void {
    this.transport.close();
  }

  /** Sends one request and counts it (verb × status code) at the moment its response starts. */
  private async send(verb: Verb, req: HttpRequest): Promise<ApiResponse> {
    const started = performance.now();
    const withTimeout = verb === 'watch' ? req : { ...req, timeoutMs: this.timeoutMs };
    try {
      const res = await this.transport.open(withTimeout);
      const code = res.statusCode;
      if (code >= 200 && code < 300) this.lastAnsweredAt = Date.now();
      this.requests.record(verb, code);
      this.metrics.observe(verb, req.method, code, (performance.now() - started) / 1000);
      return res;
    } catch (err) {
      if (!req.signal?.aborted) {
        this.requests.record(verb, NO_RESPONSE);
        this.metrics.observe(verb, req.method, NO_RESPONSE, (performance.now() - started) / 1000);
      }
      throw err;
    }
  }

  private async json<T>(verb: Verb, req: HttpRequest): Promise<T> {
    return this.decode<T>(await this.send(verb, req), req);
  }

  private async decode<T>(res: ApiResponse, req: HttpRequest): Promise<T> {
    const body = await readBody(res, req);
    const code = res.statusCode;
    if (code < 200 || code >= 300)
      throw apiErrorFromResponse(code, body, { verb: req.method, path: req.path });
    try {
      return JSON.parse(body) as T;
    } catch (err) {
      throw new ApiError({
        code,
        reason: 'InvalidResponse',
        message: `response is not JSON: ${body.slice(0, 200)}`,
        verb: req.method,
        path: req.path,
        cause: err,
      });
    }
  }
}

/** Builds the project's Kubernetes client: kubeconfig and auth from client-node, plain JSON over REST. */
export function createKubeClient(kubeConfig: KubeConfig, opts: KubeClientOptions): RestKubeClient {
  return new RestClient(kubeConfig, opts);
}

/**
 * A client that sends over `client`'s connection (and identity) but writes as another field
 * manager, with its own timeout and counters: several operators in one process keep their own
 * field managers on one API-server connection. Closing it closes nothing; close `client`.
 */
export function shareConnection(
  client: RestKubeClient,
  opts: Pick<KubeClientOptions, 'fieldManager' | 'requestTimeoutMs' | 'registry'>,
): RestKubeClient {
  if (!(client instanceof RestClient)) throw new TypeError('shareConnection: a client from createKubeClient');
  const shared = client.sharing(opts);
  shared.close = () => {};
  return shared;
}

/** Lists every page of a collection; the result's resourceVersion is the one to watch from. */
export async function listAll<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  opts: Omit<ListOptions, 'continue' | 'limit'> & { pageSize?: number } = {},
): Promise<{ items: T[]; resourceVersion: string }> {
  const { pageSize = 500, resourceVersion: startAt, ...selectors } = opts;
  const items: T[] = [];
  let cont: string | undefined;
  let resourceVersion = '';
  do {
    // A continue token pins the snapshot: resourceVersion may only go with the first page.
    const page = await client.list<T>(kind, {
      ...selectors,
      limit: pageSize,
      ...(cont ? { continue: cont } : startAt ? { resourceVersion: startAt } : {}),
    });
    items.push(...page.items);
    resourceVersion = page.metadata.resourceVersion;
    cont = page.metadata.continue || undefined;
  } while (cont);
  return { items, resourceVersion };
}

export { type Impersonation, impersonationHeaders, serviceAccountUser } from './client-transport.js';
