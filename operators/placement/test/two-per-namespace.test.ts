import { setTimeout as sleep } from 'node:timers/promises';
import { Kinds } from '@stackops/lib-common/client';
import { controllerOf } from '@stackops/lib-common/objects';
import { writesOver } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  conditionOf,
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  simulateKeystoneRegistration,
  waitForCondition,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

/** How long the writes of a settled namespace are counted. */
const WINDOW_MS = 10_000;

const suite = useOperator({ beforeAll, afterAll }, 1);

describe('two PlacementAPIs in one namespace', () => {
  it('the second is refused with a condition and writes nothing; nothing of the first is touched, even when the second is deleted', async () => {
    const { client } = suite;
    const ns = suite.namespaces[0]!;
    await createPrerequisites(client, ns);
    const first = await createPlacementAPI(client, ns);
    await simulateKeystoneRegistration(client, ns);
    await waitForCondition(client, ns, 'Ready', 'True', { timeoutMs: 90_000 });
    const accountBefore = await client.get(Kinds.Secret, { namespace: ns, name: 'placement-db-secret' });
    const jobsBefore = (await client.list(Kinds.Job, { namespace: ns })).items
      .map((j) => j.metadata.uid)
      .sort();
    expect((accountBefore && controllerOf(accountBefore))?.uid).toBe(first.metadata.uid);

    await createPlacementAPI(client, ns, {}, 'placement-second');
    const second = await waitForCondition(client, ns, 'Ready', 'False', {
      name: 'placement-second',
      message: /only one PlacementAPI per namespace/,
    });
    expect(conditionOf(second, 'Ready')).toMatchObject({ severity: 'Error' });
    expect(conditionOf(second, 'Ready')?.message).toContain(`PlacementAPI placement already runs in ${ns}`);
    expect(second.metadata.finalizers ?? []).toEqual([]);

    // A bounded number of writes over the window (two CRs fighting over fixed names write without end).
    // Counted in this namespace: a file that ran before may leave namespaces finalising.
    await sleep(1_000);
    expect(await writesOver(suite.operator.manager.client, ns, WINDOW_MS)).toBeLessThanOrEqual(2);
    const accountAfter = await client.get(Kinds.Secret, { namespace: ns, name: 'placement-db-secret' });
    expect(accountAfter?.metadata.resourceVersion).toBe(accountBefore?.metadata.resourceVersion);

    await client.delete(PlacementAPIKind, { namespace: ns, name: 'placement-second' });
    await sleep(3_000);
    const jobsAfter = (await client.list(Kinds.Job, { namespace: ns })).items
      .map((j) => j.metadata.uid)
      .sort();
    expect(jobsAfter).toEqual(jobsBefore);
    expect(conditionOf(await getPlacementAPI(client, ns), 'Ready')?.status).toBe('True');
  });
});
