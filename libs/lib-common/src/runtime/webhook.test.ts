import { createServer } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { jsonPatch, startDefaultingWebhook } from './webhook.js';

/** POSTs `body` to the webhook over HTTPS, trusting only its own certificate. */
function post(
  port: number,
  ca: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('defaulting webhook server', () => {
  it("answers an AdmissionReview over HTTPS with the defaulter's changes as a JSON Patch, allowed", async () => {
    const webhook = await startDefaultingWebhook({
      bindAddress: '127.0.0.1:0',
      defaulters: {
        '/mutate': (obj) => {
          const spec = obj['spec'] as Record<string, unknown>;
          spec['image'] ??= 'default:1';
          spec['cpu'] = '1';
        },
      },
    });
    if (!webhook) throw new Error('webhook not started');
    try {
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u-1', object: { metadata: { name: 'a/b' }, spec: { cpu: '1.0' } } },
      };
      const { status, json } = await post(webhook.address.port, webhook.certificate.cert, '/mutate', review);
      expect(status).toBe(200);
      const response = (
        json as { response: { uid: string; allowed: boolean; patchType: string; patch: string } }
      ).response;
      expect(response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
      expect(JSON.parse(Buffer.from(response.patch, 'base64').toString())).toEqual([
        { op: 'replace', path: '/spec/cpu', value: '1' },
        { op: 'add', path: '/spec/image', value: 'default:1' },
      ]);
      // Nothing to change: allowed, no patch.
      const unchanged = await post(webhook.address.port, webhook.certificate.cert, '/mutate', {
        ...review,
        request: { uid: 'u-2', object: { spec: { cpu: '1', image: 'mine' } } },
      });
      expect((unchanged.json as { response: unknown }).response).toEqual({ uid: 'u-2', allowed: true });
      expect((await post(webhook.address.port, webhook.certificate.cert, '/other', review)).status).toBe(404);
    } finally {
      await webhook.stop();
    }
  });

  it('serves the paths of two operators in one process from one server on their shared address', async () => {
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise((r) => free.close(r));
    const bindAddress = `127.0.0.1:${port}`;
    const set = (image: string) => (obj: Record<string, unknown>) => {
      (obj['spec'] as Record<string, unknown>)['image'] = image;
    };
    const a = await startDefaultingWebhook({ bindAddress, defaulters: { '/a': set('a') } });
    const b = await startDefaultingWebhook({ bindAddress, defaulters: { '/b': set('b') } });
    if (!a || !b) throw new Error('webhook not started');
    const review = { request: { uid: 'u', object: { spec: {} } } };
    const patchOf = async (path: string) => {
      const { json } = await post(port, a.certificate.cert, path, review);
      const patch = (json as { response: { patch: string } }).response.patch;
      return JSON.parse(Buffer.from(patch, 'base64').toString()) as unknown;
    };
    try {
      expect(b.certificate).toBe(a.certificate);
      expect(await patchOf('/a')).toEqual([{ op: 'add', path: '/spec/image', value: 'a' }]);
      expect(await patchOf('/b')).toEqual([{ op: 'add', path: '/spec/image', value: 'b' }]);
      await expect(startDefaultingWebhook({ bindAddress, defaulters: { '/a': set('c') } })).rejects.toThrow(
        `webhook 127.0.0.1:${port}: paths already served: /a`,
      );
      // The first to stop takes only its paths; the server stays for the other.
      await a.stop();
      expect((await post(port, a.certificate.cert, '/a', review)).status).toBe(404);
      expect(await patchOf('/b')).toEqual([{ op: 'add', path: '/spec/image', value: 'b' }]);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('is off without a bind address', async () => {
    expect(await startDefaultingWebhook({ bindAddress: undefined, defaulters: {} })).toBeUndefined();
    expect(await startDefaultingWebhook({ bindAddress: '0', defaulters: {} })).toBeUndefined();
  });

  it('jsonPatch escapes keys and replaces arrays whole', () => {
    expect(jsonPatch({ a: { 'x/y': 1 }, l: [1] }, { a: { 'x/y': 2 }, l: [1, 2] })).toEqual([
      { op: 'replace', path: '/a/x~1y', value: 2 },
      { op: 'replace', path: '/l', value: [1, 2] },
    ]);
    expect(jsonPatch({ a: 1, b: 2 }, { a: 1 })).toEqual([{ op: 'remove', path: '/b' }]);
  });
});
