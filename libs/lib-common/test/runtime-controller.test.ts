import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import type { KubeObject } from '../src/client/types.js';
import type { Controller } from '../src/runtime/controller.js';
import type { Manager } from '../src/runtime/manager.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually, waitFor } from '../src/testing/wait.js';
import {
  addGreetingController,
  configMapName,
  type Greeting,
  GreetingKind,
  greeting,
} from './support/greeting.js';
import { settle } from './support/settle.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };

const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
const env = useTestNamespace(
  { beforeAll, afterAll, beforeEach, afterEach },
  { prefix: 'runtime-ctrl', crds },
);
let manager: Manager;
let controller: Controller<Greeting>;
let reconciles: string[];

const isReady = (g: Greeting | undefined): boolean =>
  (g?.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) === true && g?.status?.observedGeneration === g?.metadata.generation;

beforeEach(async () => {
  reconciles = [];
  manager = await startTestManager({ name: 'greeting-operator', namespaces: [env.ns.name] }, (m) => {
    controller = addGreetingController(m, { onReconcile: (k) => reconciles.push(k) });
  });
});
afterEach(async () => {
  await manager.stop();
});

describe('an example controller (Greeting owns a ConfigMap, watches a Secret)', () => {
  it('converges, and a reconcile with no input change issues zero write requests', async () => {
    await env.admin.create(GreetingKind, greeting(env.ns.name, 'hello', { message: 'hi' }));
    const ready = await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      { namespace: env.ns.name, name: 'hello' },
      isReady,
    );
    const cm = await env.admin.get<ConfigMap>(Kinds.ConfigMap, {
      namespace: env.ns.name,
      name: configMapName(ready as Greeting),
    });
    expect(cm?.data?.['message']).toBe('hi');
    expect(cm?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Greeting',
      name: 'hello',
      controller: true,
    });
    const fields =
      (cm?.metadata as { managedFields?: { manager: string }[] } | undefined)?.managedFields ?? [];
    const managers = fields.map((f) => f.manager);
    expect(managers).toContain('stackops-greeting-operator');

    // Let the echoes of our own writes (status patch, ConfigMap apply) die down.
    await settle(controller, () => reconciles.length);
    const requests = manager.client.requests;
    requests.reset();
    const before = reconciles.length;
    controller.enqueue({ namespace: env.ns.name, name: 'hello' });
    await settle(controller, () => reconciles.length);
    expect(reconciles.length).toBe(before + 1);
    expect(requests.writes()).toBe(0);
    // …and no reads either: everything came from the informer cache
    expect(requests.count({ verb: ['get', 'list'] })).toBe(0);
  });

  it('recreates an owned ConfigMap that is deleted', async () => {
    await env.admin.create(GreetingKind, greeting(env.ns.name, 'phoenix', { message: 'again' }));
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'phoenix' }, isReady);
    const ref = { namespace: env.ns.name, name: 'phoenix-greeting' };
    const first = await env.admin.get<ConfigMap>(Kinds.ConfigMap, ref);
    await env.admin.delete(Kinds.ConfigMap, ref);
    const back = await waitFor<ConfigMap>(
      env.admin,
      Kinds.ConfigMap,
      ref,
      (c) => c !== undefined && c.metadata.uid !== first?.metadata.uid,
      { description: 'a new ConfigMap' },
    );
    expect(back?.data?.['message']).toBe('again');
  });

  it('re-reconciles the owner when a Secret it names changes, without putting Secret values anywhere', async () => {
    await env.admin.create(Kinds.Secret, {
      metadata: { name: 'creds', namespace: env.ns.name },
      stringData: { password: 'first-secret-value' },
    });
    await env.admin.create(
      GreetingKind,
      greeting(env.ns.name, 'keyed', { message: 'm', secretName: 'creds' }),
    );
    const ready = await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      { namespace: env.ns.name, name: 'keyed' },
      isReady,
    );
    const firstHash = ready?.status?.inputHash;
    expect(firstHash).toBeTruthy();
    await env.admin.patch(
      Kinds.Secret,
      { namespace: env.ns.name, name: 'creds' },
      { stringData: { password: 'second-secret-value' } },
      'merge',
    );
    const changed = await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      { namespace: env.ns.name, name: 'keyed' },
      (g) => g?.status?.inputHash !== undefined && g.status.inputHash !== firstHash,
      { description: 'a new input hash' },
    );
    const cm = await env.admin.get<ConfigMap>(Kinds.ConfigMap, {
      namespace: env.ns.name,
      name: 'keyed-greeting',
    });
    expect(cm?.data?.['inputHash']).toBe(changed?.status?.inputHash);
    expect(JSON.stringify(cm)).not.toContain('second-secret-value');
    expect(JSON.stringify(changed)).not.toContain('second-secret-value');
  });

  it('waits for a missing Secret, then converges when it appears', async () => {
    await env.admin.create(
      GreetingKind,
      greeting(env.ns.name, 'patient', { message: 'm', secretName: 'later' }),
    );
    await waitFor<Greeting>(
      env.admin,
      GreetingKind,
      { namespace: env.ns.name, name: 'patient' },
      (g) =>
        (g?.status?.conditions as { type: string; reason?: string }[] | undefined)?.some(
          (c) => c.type === 'InputReady' && c.reason === 'SecretMissing',
        ) === true,
      { description: 'InputReady=False SecretMissing' },
    );
    await env.admin.create(Kinds.Secret, {
      metadata: { name: 'later', namespace: env.ns.name },
      stringData: { k: 'v' },
    });
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'patient' }, isReady);
  });

  it('records a TerminalError as a Warning Event and does not retry it', async () => {
    await env.admin.create(GreetingKind, greeting(env.ns.name, 'bad', { message: 'hello {{ name }}' }));
    const event = await eventually(async () => {
      const events = await env.admin.list<KubeObject & { reason?: string; type?: string; message?: string }>(
        Kinds.Event,
        {
          namespace: env.ns.name,
          fieldSelector: 'involvedObject.name=bad',
        },
      );
      const found = events.items.find((e) => e.reason === 'InvalidMessage');
      if (!found) throw new Error('no InvalidMessage event yet');
      return found;
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toBe('spec.message must not contain template markers');
    const attempts = reconciles.filter((k) => k.endsWith('/bad')).length;
    await new Promise((r) => setTimeout(r, 2000));
    expect(reconciles.filter((k) => k.endsWith('/bad')).length).toBe(attempts);
    // a spec change is a new input: it is reconciled again, and converges
    await env.admin.patch(
      GreetingKind,
      { namespace: env.ns.name, name: 'bad' },
      { spec: { message: 'hello' } },
      'merge',
    );
    await waitFor<Greeting>(env.admin, GreetingKind, { namespace: env.ns.name, name: 'bad' }, isReady);
  });
});
