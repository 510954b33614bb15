import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import { KubeEventRecorder } from '../src/runtime/recorder.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';

type Event = KubeObject & { reason?: string; message?: string; count?: number; type?: string };

let client: RestKubeClient;
let ns: TestNamespace;
beforeAll(async () => {
  client = createKubeClient(loadTestKubeConfig(), { fieldManager: 'events-test' });
  ns = await createTestNamespace(client, 'runtime-events');
});
afterAll(async () => {
  await ns.delete();
  client.close();
});

describe('event recorder against the API server', () => {
  it('records one Event per distinct message, counting repeats, with no Secret content', async () => {
    const secret = await client.create<KubeObject>(Kinds.Secret, {
      metadata: { name: 'db', namespace: ns.name },
      stringData: { password: 'do-not-leak-me' },
    });
    const recorder = new KubeEventRecorder(client, { component: 'events-test' });
    for (let i = 0; i < 3; i++)
      await recorder.warning(secret, 'PasswordRejected', 'the database refused the password');
    await recorder.normal(secret, 'Rotated', 'password rotated');
    const events = await client.list<Event>(Kinds.Event, {
      namespace: ns.name,
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
