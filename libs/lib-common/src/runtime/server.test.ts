import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../client/types.js';
import { ApiServerCheck, HttpEndpoint, parseEndpoint, probe } from './server.js';

describe('parseEndpoint', () => {
  // Binding every interface is proven on the real node (kubelet probes the pod IP); a unit test
  // here must not listen beyond loopback.
  it('an empty host means every interface, as in controller-runtime (charts pass `:8081`)', () => {
    expect(parseEndpoint(':8081')).toEqual({ host: '', port: 8081 });
  });

  it('keeps an explicit host, unwraps IPv6 brackets, and uses the default host for a bare port', () => {
    expect(parseEndpoint('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseEndpoint('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseEndpoint('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
  });

  it('`0` and empty disable the endpoint; a bad port is refused', () => {
    expect(parseEndpoint('0')).toBeUndefined();
    expect(parseEndpoint('')).toBeUndefined();
    expect(() => parseEndpoint(':99999')).toThrow(/invalid address/);
  });
});

describe('HttpEndpoint', () => {
  it('serves on the loopback address it was given, and refuses a port that is taken, naming it', async () => {
    const first = new HttpEndpoint({ host: '127.0.0.1', port: 0 }, { '/readyz': probe(() => undefined) });
    const bound = await first.start();
    try {
      expect(bound.host).toBe('127.0.0.1');
      const res = await fetch(`http://127.0.0.1:${bound.port}/readyz`);
      expect([res.status, await res.text()]).toEqual([200, 'ok\n']);
      const second = new HttpEndpoint(bound, {});
      await expect(second.start()).rejects.toThrow(new RegExp(`EADDRINUSE.*127\\.0\\.0\\.1:${bound.port}`));
      await second.stop();
    } finally {
      await first.stop();
    }
  });
});

describe('ApiServerCheck', () => {
  /** A client whose only call is the review; `answer` decides how it ends. */
  const reviewer = (answer: () => Promise<unknown>) => {
    const calls = { n: 0 };
    const client = {
      create: () => {
        calls.n++;
        return answer();
      },
    } as unknown as KubeClient;
    return { client, calls };
  };

  it('sends no review while another request was answered within maxAge, and one after', async () => {
    const { client, calls } = reviewer(() => Promise.resolve({}));
    let answeredAt: number | undefined = Date.now();
    const check = new ApiServerCheck(client, { maxAgeMs: 5_000, lastAnsweredAt: () => answeredAt });
    expect(await check.check()).toBeUndefined();
    expect(calls.n).toBe(0);
    answeredAt = Date.now() - 6_000;
    expect(await check.check()).toBeUndefined();
    expect(calls.n).toBe(1);
  });

  it('reports the API server unreachable when nothing was answered and the review fails', async () => {
    const { client, calls } = reviewer(() => Promise.reject(new Error('connect ECONNREFUSED')));
    const check = new ApiServerCheck(client, { lastAnsweredAt: () => undefined });
    expect(await check.check()).toMatch(/^API server unreachable: connect ECONNREFUSED/);
    expect(calls.n).toBe(1);
  });
});
