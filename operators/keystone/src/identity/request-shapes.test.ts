import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityV3Url, joinUrl, passwordAuthBody } from './auth.js';
import { IdentityClient } from './client.js';
import { queryString } from './collection.js';
import { IdentityError } from './errors.js';

// Request building only: a tiny recorder on 127.0.0.1 answers canned bodies. Keystone's behaviour is
// tested against a real Keystone in test/identity-*.test.ts.
interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

let server: Server;
let base: string;
const recorded: Recorded[] = [];
let tokenCount = 0;

function expiresIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      recorded.push(entry);
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      if (entry.url === '/identity/v3/auth/tokens' && entry.method === 'POST') {
        tokenCount += 1;
        send(
          201,
          {
            token: {
              expires_at: expiresIn(3_600_000),
              user: { id: 'u1', name: 'admin' },
              system: { all: true },
            },
          },
          { 'x-subject-token': `tok-${tokenCount}` },
        );
      } else if (
        entry.url === '/identity/v3/services?type=placement' &&
        entry.headers['x-auth-token'] === 'tok-1'
      ) {
        send(401, {
          error: {
            code: 401,
            title: 'Unauthorized',
            message: 'The request you have made requires authentication.',
          },
        });
      } else if (entry.url.startsWith('/identity/v3/services?type=placement')) {
        send(200, {
          services: [{ id: 's1', type: 'placement', name: 'placement', enabled: true }],
          links: { next: `${base}/identity/v3/services?marker=s1` },
        });
      } else if (entry.url === '/identity/v3/services?marker=s1') {
        send(200, {
          services: [{ id: 's2', type: 'placement', name: 'placement2', enabled: true }],
          links: { next: null },
        });
      } else if (
        entry.url === '/identity/v3/users/missing' ||
        entry.url === '/identity/v3/services/missing'
      ) {
        send(404, { error: { code: 404, title: 'Not Found', message: 'Could not find user: missing.' } });
      } else if (entry.url === '/identity/v3/users' && entry.method === 'POST') {
        send(409, {
          error: {
            code: 409,
            title: 'Conflict',
            message: 'Conflict occurred attempting to store user - Duplicate entry.',
          },
        });
      } else if (entry.method === 'PUT' || entry.method === 'DELETE') {
        send(204);
      } else {
        send(500, {
          error: {
            code: 500,
            title: 'Internal Server Error',
            message: `unexpected ${entry.method} ${entry.url}`,
          },
        });
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe('URLs and bodies', () => {
  it('adds /v3 to an unversioned Keystone URL and keeps an existing one', () => {
    expect(identityV3Url('http://keystone-internal.ns.svc:5000').href).toBe(
      'http://keystone-internal.ns.svc:5000/v3',
    );
    expect(identityV3Url('http://k:5000/v3/').href).toBe('http://k:5000/v3');
    expect(identityV3Url('https://k/identity').href).toBe('https://k/identity/v3');
  });

  it('joins relative paths under the base path, keeping the query', () => {
    expect(joinUrl(new URL('http://k/identity/v3'), 'services?type=x').href).toBe(
      'http://k/identity/v3/services?type=x',
    );
  });

  it('builds a password auth body for system scope, project scope and no scope', () => {
    const creds = { username: 'admin', password: 'pw' };
    const user = { name: 'admin', domain: { name: 'Default' }, password: 'pw' };
    expect(passwordAuthBody(creds, { system: 'all' })).toEqual({
      auth: { identity: { methods: ['password'], password: { user } }, scope: { system: { all: true } } },
    });
    expect(passwordAuthBody(creds, { project: { name: 'service' } })).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user } },
        scope: { project: { name: 'service', domain: { name: 'Default' } } },
      },
    });
    expect(passwordAuthBody(creds, { unscoped: true })).toEqual({
      auth: { identity: { methods: ['password'], password: { user } } },
    });
  });

  it('writes filters as a sorted query of the defined values', () => {
    expect(queryString({ type: 'placement', name: undefined, enabled: true })).toBe(
      '?enabled=true&type=placement',
    );
    expect(queryString({ 'scope.project.id': 'p 1' })).toBe('?scope.project.id=p+1');
    expect(queryString(undefined)).toBe('');
  });
});

describe('IdentityClient requests', () => {
  it('authenticates once, retries a 401 with a new token, and follows links.next', async () => {
    const client = new IdentityClient({ authUrl: `${base}/identity`, username: 'admin', password: 'pw' });
    recorded.length = 0;
    const services = await client.services.list({ type: 'placement' });
    expect(services.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(recorded.map((r) => `${r.method} ${r.url} ${r.headers['x-auth-token'] ?? ''}`.trim())).toEqual([
      'POST /identity/v3/auth/tokens',
      'GET /identity/v3/services?type=placement tok-1',
      'POST /identity/v3/auth/tokens',
      'GET /identity/v3/services?type=placement tok-2',
      'GET /identity/v3/services?marker=s1 tok-2',
    ]);
    expect(recorded[0]?.body).toMatchObject({ auth: { scope: { system: { all: true } } } });
  });

  it('wraps bodies in the member name and grants roles with PUT on the project path', async () => {
    const client = new IdentityClient({
      authUrl: base.replace(/$/, '/identity/v3'),
      username: 'admin',
      password: 'pw',
    });
    recorded.length = 0;
    const err = await client.users.create({ name: 'placement', password: 'secret' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).status).toBe(409);
    expect((err as IdentityError).message).toBe(
      'keystone POST /identity/v3/users: 409 Conflict: Conflict occurred attempting to store user - Duplicate entry.',
    );
    expect((err as IdentityError).message).not.toContain('secret');
    const create = recorded.find((r) => r.url === '/identity/v3/users');
    expect(create?.body).toEqual({ user: { name: 'placement', password: 'secret' } });
    await client.roleAssignments.grant({ projectId: 'p1' }, 'u1', 'r1');
    await client.roleAssignments.grant({ system: 'all' }, 'u1', 'r1');
    expect(recorded.slice(-2).map((r) => `${r.method} ${r.url}`)).toEqual([
      'PUT /identity/v3/projects/p1/users/u1/roles/r1',
      'PUT /identity/v3/system/users/u1/roles/r1',
    ]);
  });

  it('maps 404 to undefined for get and false for delete', async () => {
    const client = new IdentityClient({ authUrl: `${base}/identity`, username: 'admin', password: 'pw' });
    expect(await client.users.get('missing')).toBeUndefined();
    expect(await client.services.delete('missing')).toBe(false);
    // Control: the same call on an existing id (204) is true.
    expect(await client.services.delete('any')).toBe(true);
  });

  it('reports an unreachable Keystone as status 0 with the transport error', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const client = new IdentityClient({
      authUrl: `http://127.0.0.1:${port}`,
      username: 'admin',
      password: 'pw',
    });
    const err = await client.services.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).status).toBe(0);
    expect((err as IdentityError).message).toMatch(
      /POST \/v3\/auth\/tokens: ConnectionError: .*ECONNREFUSED/,
    );
  });
});
