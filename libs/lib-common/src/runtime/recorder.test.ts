import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { KubeEventRecorder } from './recorder.js';

interface Call {
  verb: 'create' | 'patch';
  body: Record<string, unknown>;
}

function fakeClient(opts: { patchFails?: ApiError } = {}) {
  const calls: Call[] = [];
  const client = {
    fieldManager: 'test',
    async create(_k: unknown, obj: KubeObject) {
      calls.push({ verb: 'create', body: obj as unknown as Record<string, unknown> });
      return obj;
    },
    async patch(_k: unknown, _ref: unknown, patch: Record<string, unknown>) {
      calls.push({ verb: 'patch', body: patch });
      if (opts.patchFails) throw opts.patchFails;
      return {} as KubeObject;
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const secret: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'ns', uid: 'u-1', resourceVersion: '7' },
  data: { password: 'c2VjcmV0' },
};
const now = () => new Date('2026-11-21T10:00:00.123Z');

describe('KubeEventRecorder', () => {
  it('creates a core/v1 Event with a reference to the object and nothing of its content', async () => {
    const { client, calls } = fakeClient();
    await new KubeEventRecorder(client, { component: 'keystone-operator', now }).warning(
      secret,
      'Missing',
      'key absent',
    );
    expect(calls).toHaveLength(1);
    const ev = calls[0]?.body ?? {};
    expect(ev).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'ns' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Secret',
        name: 'db',
        namespace: 'ns',
        uid: 'u-1',
        resourceVersion: '7',
      },
      type: 'Warning',
      reason: 'Missing',
      message: 'key absent',
      source: { component: 'keystone-operator' },
      count: 1,
      firstTimestamp: '2026-11-21T10:00:00Z',
    });
    expect(JSON.stringify(ev)).not.toContain('c2VjcmV0');
  });

  it('bumps the count of the same event instead of creating another', async () => {
    const { client, calls } = fakeClient();
    const r = new KubeEventRecorder(client, { component: 'op', now });
    await r.normal(secret, 'Synced', 'done');
    await r.normal(secret, 'Synced', 'done');
    await r.normal(secret, 'Synced', 'done');
    await r.normal(secret, 'Synced', 'other message');
    expect(calls.map((c) => c.verb)).toEqual(['create', 'patch', 'patch', 'create']);
    expect(calls[2]?.body).toEqual({ count: 3, lastTimestamp: '2026-11-21T10:00:00Z' });
  });

  it('starts a new Event when the old one is gone, and never throws', async () => {
    const gone = new ApiError({ code: 404, reason: 'NotFound', message: 'events "x" not found' });
    const { client, calls } = fakeClient({ patchFails: gone });
    const r = new KubeEventRecorder(client, { component: 'op', now });
    await r.normal(secret, 'Synced', 'done');
    await r.normal(secret, 'Synced', 'done');
    expect(calls.map((c) => c.verb)).toEqual(['create', 'patch', 'create']);
    const broken = fakeClient({
      patchFails: new ApiError({ code: 500, reason: 'InternalError', message: 'x' }),
    });
    const r2 = new KubeEventRecorder(broken.client, { component: 'op', now });
    await r2.normal(secret, 'Synced', 'done');
    await expect(r2.normal(secret, 'Synced', 'done')).resolves.toBeUndefined();
  });

  it('logs a namespace being deleted refusing the Event at debug, anything else at warn', async () => {
    const lines: { level: string; msg: string }[] = [];
    const logger = {
      debug: (_o: unknown, msg: string) => lines.push({ level: 'debug', msg }),
      warn: (_o: unknown, msg: string) => lines.push({ level: 'warn', msg }),
    } as unknown as Logger;
    const refusing = (err: ApiError) =>
      ({
        fieldManager: 'test',
        create: async () => {
          throw err;
        },
      }) as unknown as KubeClient;
    const terminating = new ApiError({
      code: 403,
      reason: 'Forbidden',
      message: 'unable to create new content in namespace ns because it is being terminated',
      details: { causes: [{ type: 'NamespaceTerminating' }] },
    });
    await new KubeEventRecorder(refusing(terminating), { component: 'op', now, logger }).normal(
      secret,
      'A',
      'a',
    );
    const denied = new ApiError({ code: 403, reason: 'Forbidden', message: 'events is forbidden' });
    await new KubeEventRecorder(refusing(denied), { component: 'op', now, logger }).normal(secret, 'A', 'a');
    expect(lines.map((l) => l.level)).toEqual(['debug', 'warn']);
  });

  it('cuts messages to the Events API limit', async () => {
    const { client, calls } = fakeClient();
    await new KubeEventRecorder(client, { component: 'op', now }).normal(secret, 'Long', 'x'.repeat(5000));
    expect(String(calls[0]?.body['message'])).toHaveLength(1024);
  });
});
