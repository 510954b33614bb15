import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import { KubeEventRecorder } from '../src/runtime/recorder.js';
import { useTestNamespace } from '../src/testing/namespace.js';

type Event = KubeObject & { reason?: string; message?: string; count?: number; type?: string };

const t = useTestNamespace(
  { beforeAll, afterAll, beforeEach, afterEach },
  { prefix: 'runtime-events', fieldManager: 'events-test', scope: 'file' },
);

describe('event recorder against the API server', () => {
  it('records one Event per distinct message, counting repeats, with no Secret content', async () => {
    const secret = await t.admin.create<KubeObject>(Kinds.Secret, {
      metadata: { name: 'db', namespace: t.ns.name },
      stringData: { password: 'do-not-leak-me' },
    });
    const recorder = new KubeEventRecorder(t.admin, { component: 'events-test' });
    for (let i = 0; i < 3; i++)
      await recorder.warning(secret, 'PasswordRejected', 'the database refused the password');
    await recorder.normal(secret, 'Rotated', 'password rotated');
    const events = await t.admin.list<Event>(Kinds.Event, {
      namespace: t.ns.name,
      fieldSelector: `involvedObject.uid=${secret.metadata.uid}`,
    });
    const summary = events.items.map((e) => [e.type, e.reason, e.count]).sort();
    expect(summary).toEqual([
      ['Normal', 'Rotated', 1],
      ['Warning', 'PasswordRejected', 3],
    ]);
    expect(JSON.stringify(events.items)).not.toContain('do-not-leak-me');
    expect(JSON.stringify(events.items)).not.toContain(Buffer.from('do-not-leak-me').toString('base64'));
  });
});
