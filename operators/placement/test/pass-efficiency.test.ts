import { eventsIn } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  simulateKeystoneRegistration,
  waitForCondition,
  waitForPlacement,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

const suite = useOperator({ beforeAll, afterAll }, 1);

/** Resolves once the reconcile count did not move for `quietMs`. */
async function settled(quietMs = 2_000): Promise<number> {
  let last = await suite.operator.reconciles();
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await suite.operator.reconciles();
    if (now === last) return now;
    last = now;
  }
}

describe('a PlacementAPI pass does only what is needed (issue 20)', () => {
  it('apply → Ready records Events for its Jobs, Deployment and Ready only; a status-only update does not wake it, the next pass puts it right', async () => {
    const { client } = suite;
    const ns = suite.namespaces[0]!;
    await createPrerequisites(client, ns);
    await createPlacementAPI(client, ns);
    await simulateKeystoneRegistration(client, ns);
    await waitForCondition(client, ns, 'Ready', 'True', { timeoutMs: 90_000 });
    const before = await settled();
    const events = (await eventsIn(client, ns)).filter(
      (e) => e.involvedObject?.kind === 'PlacementAPI' && e.involvedObject.name === 'placement',
    );
    // db-create and db-sync Jobs, the Deployment, Ready: not one per Secret, Service, RBAC object
    // or keystone child.
    expect(events.map((e) => e.reason).sort()).toEqual([
      'Ready',
      'SuccessfulCreate',
      'SuccessfulCreate',
      'SuccessfulCreate',
    ]);

    const readyCount = (await getPlacementAPI(client, ns))?.status?.readyCount;
    expect(readyCount).toBe(1);
    await client.patch(
      PlacementAPIKind,
      { namespace: ns, name: 'placement' },
      { status: { readyCount: 7 } },
      'merge',
      { subresource: 'status' },
    );
    expect(await settled(3_000)).toBe(before);
    expect((await getPlacementAPI(client, ns))?.status?.readyCount).toBe(7);
    await client.patch(
      PlacementAPIKind,
      { namespace: ns, name: 'placement' },
      { metadata: { labels: { 'example.org/touched': 'yes' } } },
      'merge',
    );
    await waitForPlacement(client, ns, 'readyCount put right', (cr) => cr.status?.readyCount === 1);
  });
});
