import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type RestKubeClient } from '../src/client/client.js';
import { isConflict } from '../src/client/errors.js';
import { holdFinalizer, releaseFinalizer } from '../src/runtime/finalizer.js';
import { installCrds } from '../src/testing/crds.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { createTestNamespace, type TestNamespace } from '../src/testing/namespace.js';
import { type Greeting, GreetingKind } from './support/greeting.js';

const OURS = 'example.stackops.dev/consumer';
const crds = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
let client: RestKubeClient;
let owner: RestKubeClient;
let ns: TestNamespace;

beforeAll(async () => {
  client = createKubeClient(loadTestKubeConfig(), { fieldManager: 'test-consumer' });
  owner = createKubeClient(loadTestKubeConfig(), { fieldManager: 'test-owner' });
  await installCrds(client, crds);
  ns = await createTestNamespace(client, 'foreign-fin');
});
afterAll(async () => {
  await ns.delete();
  client.close();
  owner.close();
});

/** The owning controller at work: writes the object's status as fast as it can until stopped. */
function statusWriter(ref: { name: string; namespace: string }) {
  let stop = false;
  let writes = 0;
  const done = (async () => {
    while (!stop) {
      await owner.patch(GreetingKind, ref, { status: { observedGeneration: ++writes } }, 'merge', {
        subresource: 'status',
      });
    }
  })();
  return {
    writes: () => writes,
    stop: async () => {
      stop = true;
      await done;
    },
  };
}

describe('a finalizer on an object another controller owns (real API server)', () => {
  it('holdFinalizer/releaseFinalizer succeed from a stale copy while the owner writes its status in a loop; a resourceVersion-pinned merge patch conflicts', async () => {
    const ref = { name: 'shared', namespace: ns.name };
    await client.create(GreetingKind, {
      apiVersion: 'example.stackops.dev/v1alpha1',
      kind: 'Greeting',
      metadata: { ...ref, finalizers: ['example.stackops.dev/owner'] },
      spec: { message: 'hi' },
    });
    const writer = statusWriter(ref);
    try {
      let pinnedConflicts = 0;
      for (let i = 0; i < 10; i++) {
        // The copy a consumer holds (its cache): a few status writes behind the server.
        const stale = (await client.get<Greeting>(GreetingKind, ref))!;
        await new Promise((r) => setTimeout(r, 30));
        const held = await holdFinalizer(client, GreetingKind, stale, OURS);
        expect(held?.metadata.finalizers).toEqual(['example.stackops.dev/owner', OURS]);
        const released = await releaseFinalizer(client, GreetingKind, held ?? ref, OURS);
        expect(released?.metadata.finalizers).toEqual(['example.stackops.dev/owner']);
        // What the three consumers did before: the whole list, pinned to the copy's resourceVersion.
        await client
          .patch(
            GreetingKind,
            ref,
            {
              metadata: {
                finalizers: [...(stale.metadata.finalizers ?? []), OURS],
                resourceVersion: stale.metadata.resourceVersion,
              },
            },
            'merge',
          )
          .then(
            () => releaseFinalizer(client, GreetingKind, ref, OURS),
            (err: unknown) => {
              if (!isConflict(err)) throw err;
              pinnedConflicts++;
            },
          );
      }
      expect(writer.writes()).toBeGreaterThan(10);
      expect(pinnedConflicts).toBeGreaterThan(0);
    } finally {
      await writer.stop();
    }
    await releaseFinalizer(client, GreetingKind, ref, 'example.stackops.dev/owner');
  });

  it('a released or held finalizer on an object that is gone: nothing to do', async () => {
    const ref = { name: 'gone', namespace: ns.name };
    expect(await holdFinalizer(client, GreetingKind, ref, OURS)).toBeUndefined();
    expect(await releaseFinalizer(client, GreetingKind, ref, OURS)).toBeUndefined();
  });
});
