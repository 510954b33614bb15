import { once } from 'node:events';
import http2 from 'node:http2';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../metrics/self-signed.js';
import { waitUntil } from '../testing/wait.js';
import { type ApiResponse, Http2Pool } from './client-http2.js';

const pair = selfSignedCertificate(['127.0.0.1']);
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An HTTP/2 server that answers `/hold` only when told to, and anything else at once. */
async function h2Server(maxConcurrentStreams: number) {
  const held: http2.ServerHttp2Stream[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createSecureServer({ ...pair, settings: { maxConcurrentStreams } });
  server.on('session', (s) => sessions.add(s));
  server.on('stream', (stream, headers) => {
    stream.respond({ ':status': 200 });
    if (headers[':path'] === '/hold') held.push(stream);
    else stream.end(`${headers[':method']} ${headers[':path']} ${headers['user-agent']}`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    for (const s of sessions) s.destroy();
    server.close();
  });
  return { url: new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), held, sessions };
}

/** An h2Server and a pool trusting it (both closed after the test). */
async function poolOn(maxConcurrentStreams: number) {
  const server = await h2Server(maxConcurrentStreams);
  const pool = new Http2Pool(server.url, { ca: pair.cert });
  closers.push(() => pool.close());
  return { ...server, pool };
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = https.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * A TCP relay in front of `target` that can go silent: `freeze()` stops forwarding on every
 * connection open so far without closing any, as a peer that vanished (no FIN, no RST).
 */
async function freezableRelay(target: URL) {
  const pairs: [net.Socket, net.Socket][] = [];
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    pairs.push([client, upstream]);
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  closers.push(() => {
    for (const pair of pairs) for (const socket of pair) socket.destroy();
    relay.close();
  });
  return {
    url: new URL(`https://127.0.0.1:${(relay.address() as AddressInfo).port}`),
    freeze: (): void => {
      for (const [client, upstream] of pairs.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
  };
}

const text = async (res: ApiResponse): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of res.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('Http2Pool', () => {
  it('sends every request over one connection while the server allows the streams', async () => {
    const { pool, held, sessions } = await poolOn(100);
    const watches = await Promise.all(
      Array.from({ length: 20 }, () => pool.request({ method: 'GET', path: '/hold', headers: {} })),
    );
    const res = await pool.request({ method: 'GET', path: '/x', headers: { 'user-agent': 'stackops/test' } });
    expect(watches.every((w) => w?.statusCode === 200)).toBe(true);
    expect(res && (await text(res))).toBe('GET /x stackops/test');
    expect(held).toHaveLength(20);
    expect(sessions.size).toBe(1);
  });

  it('warm() opens the connection before any request, and the first requests use it', async () => {
    const { pool, sessions } = await poolOn(100);
    pool.warm();
    pool.warm(); // while it opens: no second connection
    await waitUntil('the warmed connection', () => sessions.size > 0, { intervalMs: 2 });
    const [a, b] = await Promise.all([
      pool.request({ method: 'GET', path: '/a', headers: {} }),
      pool.request({ method: 'GET', path: '/b', headers: {} }),
    ]);
    expect(a && (await text(a))).toBe('GET /a undefined');
    expect(b && (await text(b))).toBe('GET /b undefined');
    pool.warm(); // one is open: nothing more
    await new Promise((r) => setTimeout(r, 20));
    expect(sessions.size).toBe(1);
  });

  it('a warm() that fails raises nothing; the next request connects again and reports its own failure', async () => {
    const unhandled: unknown[] = [];
    const record = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', record);
    closers.push(() => process.off('unhandledRejection', record));
    const refused = new Http2Pool(new URL(`https://127.0.0.1:${await closedPort()}`), { ca: pair.cert });
    closers.push(() => refused.close());
    refused.warm();
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
    await expect(refused.request({ method: 'GET', path: '/x', headers: {} })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('opens another connection when held streams fill the server limit, instead of queueing', async () => {
    const { pool, held, sessions } = await poolOn(3);
    for (let i = 0; i < 7; i++) await pool.request({ method: 'GET', path: '/hold', headers: {} });
    const res = await pool.request({ method: 'GET', path: '/after', headers: {} });
    expect(res && (await text(res))).toBe('GET /after undefined');
    expect(held).toHaveLength(7);
    expect(sessions.size).toBe(3);
  });

  it('ends the body with complete=false when the connection goes away mid-stream', async () => {
    const { pool, sessions } = await poolOn(100);
    const watch = await pool.request({ method: 'GET', path: '/hold', headers: {} });
    if (!watch) throw new Error('no response');
    watch.body.on('error', () => {});
    const closed = once(watch.body, 'close');
    for (const s of sessions) s.destroy();
    await closed;
    expect(watch.body.complete).toBe(false);
    // The pool forgot the dead connection: the next request opens a new one.
    const res = await pool.request({ method: 'GET', path: '/again', headers: {} });
    expect(res?.statusCode).toBe(200);
  });

  it('keeps a silent connection that answers PINGs, and closes one whose peer stopped answering', async () => {
    const server = await h2Server(100);
    const relay = await freezableRelay(server.url);
    const pool = new Http2Pool(relay.url, { ca: pair.cert }, { keepAliveMs: 50, pingTimeoutMs: 100 });
    closers.push(() => pool.close());
    const watch = await pool.request({ method: 'GET', path: '/hold', headers: {} });
    if (!watch) throw new Error('no response');
    watch.body.on('error', () => {});
    let closedAt: number | undefined;
    watch.body.once('close', () => {
      closedAt = Date.now();
    });
    // Several keep-alive rounds with nothing on the stream: the PINGs are answered, it stays.
    await new Promise((r) => setTimeout(r, 400));
    expect(closedAt).toBeUndefined();
    const frozenAt = Date.now();
    relay.freeze();
    // Nothing ends it but the unanswered PING: after ≤ 50 ms of silence and 100 ms without a reply.
    await waitUntil('the watch on the dead connection to end', () => closedAt, {
      timeoutMs: 2000,
      intervalMs: 5,
    });
    expect((closedAt ?? 0) - frozenAt).toBeLessThan(1000);
    expect(watch.body.complete).toBe(false);
    // The dead connection left the pool: the next request opens a new one through the relay.
    const res = await pool.request({ method: 'GET', path: '/after', headers: {} });
    expect(res && (await text(res))).toBe('GET /after undefined');
  });

  it('gives undefined for a server that only speaks HTTP/1.1, and does not ask it again', async () => {
    const server = https.createServer({ ...pair }, (_req, res) => res.end('h1'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    let connections = 0;
    server.on('connection', () => connections++);
    const pool = new Http2Pool(new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), {
      ca: pair.cert,
    });
    expect(await pool.request({ method: 'GET', path: '/', headers: {} })).toBeUndefined();
    expect(await pool.request({ method: 'GET', path: '/', headers: {} })).toBeUndefined();
    expect(pool.http1Only).toBe(true);
    expect(connections).toBe(1);
  });

  it('refuses a server whose certificate the CA did not sign', async () => {
    const { url } = await h2Server(100);
    const other = selfSignedCertificate(['127.0.0.1']);
    const pool = new Http2Pool(url, { ca: other.cert });
    await expect(pool.request({ method: 'GET', path: '/', headers: {} })).rejects.toThrow(/certificate/);
  });
});
