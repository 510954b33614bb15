import { IdentityError, isIdentityNotFound } from './errors.js';

/** What a collection needs from the client: authenticated JSON requests relative to `/v3`. */
export interface IdentityTransport {
  request(
    method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<unknown>;
}

type QueryValue = string | boolean | number | undefined;

/** `?a=1&b=x` from defined values only, in key order (stable request lines make tests and logs readable). */
export function queryString(filter: object | undefined): string {
  if (!filter) return '';
  const params = new URLSearchParams();
  for (const key of Object.keys(filter).sort()) {
    const value = (filter as Record<string, QueryValue>)[key];
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

interface ListPage<T> {
  items: T[];
  next: string | undefined;
}

function pageOf<T>(body: unknown, plural: string, path: string): ListPage<T> {
  const record = (body ?? {}) as Record<string, unknown>;
  const items = record[plural];
  if (!Array.isArray(items)) {
    throw new IdentityError({
      status: 502,
      method: 'GET',
      path,
      title: 'Bad Gateway',
      message: `no "${plural}" list in the answer`,
    });
  }
  const links = record.links as { next?: unknown } | undefined;
  const next = typeof links?.next === 'string' && links.next.length > 0 ? links.next : undefined;
  return { items: items as T[], next };
}

/** The part of an absolute `links.next` URL after `/v3/`, so the next page goes through the same transport. */
function relativeToV3(next: string): string {
  const url = new URL(next);
  const at = url.pathname.indexOf('/v3/');
  const path = at >= 0 ? url.pathname.slice(at + 4) : url.pathname;
  return `${path}${url.search}`;
}

/**
 * CRUD on one Identity v3 collection (`/v3/<plural>`, bodies wrapped in `{<member>: ...}`).
 * `get` resolves `undefined` and `delete` resolves `false` when the resource does not exist.
 */
export class Collection<T extends { id: string }, Create, Update, Filter extends object> {
  constructor(
    private readonly transport: IdentityTransport,
    private readonly plural: string,
    private readonly member: string,
  ) {}

  /** Every page (following `links.next`). */
  async list(filter?: Filter): Promise<T[]> {
    const all: T[] = [];
    let path: string | undefined = `${this.plural}${queryString(filter)}`;
    while (path) {
      const page: ListPage<T> = pageOf<T>(await this.transport.request('GET', path), this.plural, path);
      all.push(...page.items);
      path = page.next ? relativeToV3(page.next) : undefined;
    }
    return all;
  }

  async get(id: string): Promise<T | undefined> {
    try {
      return this.memberOf(await this.transport.request('GET', this.memberPath(id)), 'GET');
    } catch (err) {
      if (isIdentityNotFound(err)) return undefined;
      throw err;
    }
  }

  async create(body: Create): Promise<T> {
    return this.memberOf(await this.transport.request('POST', this.plural, { [this.member]: body }), 'POST');
  }

  async update(id: string, patch: Update): Promise<T> {
    return this.memberOf(
      await this.transport.request('PATCH', this.memberPath(id), { [this.member]: patch }),
      'PATCH',
    );
  }

  async delete(id: string): Promise<boolean> {
    try {
      await this.transport.request('DELETE', this.memberPath(id));
      return true;
    } catch (err) {
      if (isIdentityNotFound(err)) return false;
      throw err;
    }
  }

  private memberPath(id: string): string {
    return `${this.plural}/${encodeURIComponent(id)}`;
  }

  private memberOf(body: unknown, method: string): T {
    const value = ((body ?? {}) as Record<string, unknown>)[this.member];
    if (typeof value !== 'object' || value === null) {
      throw new IdentityError({
        status: 502,
        method,
        path: this.plural,
        title: 'Bad Gateway',
        message: `no "${this.member}" object in the answer`,
      });
    }
    return value as T;
  }
}
