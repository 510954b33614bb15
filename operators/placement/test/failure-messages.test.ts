import { eventsIn, failedCondition, REQUEST_LINE, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conditionOf,
  createPlacementAPI,
  createPrerequisites,
  waitForCondition,
  waitForPlacement,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

const suite = useOperator({ beforeAll, afterAll }, 3);

describe('PlacementAPI failures say what they are', () => {
  it('an invalid nodeSelector: the failing step’s condition is False (Error) naming the object and field, with an Event', async () => {
    const { client } = suite;
    const ns = suite.namespaces[0]!;
    await createPrerequisites(client, ns);
    await createPlacementAPI(client, ns, { nodeSelector: { 'bad key!': 'x' } } as never);
    const cr = await waitForPlacement(
      client,
      ns,
      'a False condition with reason Error',
      (c) => failedCondition(c) !== undefined,
    );
    const condition = failedCondition(cr)!;
    expect(condition.severity).toBe('Error');
    expect(condition.message).toMatch(/^(Job|Deployment) \S+ is invalid: .*nodeSelector: "bad key!"/);
    expect(condition.message).not.toMatch(REQUEST_LINE);
    expect(conditionOf(cr, 'Ready')).toMatchObject({ status: 'False', severity: 'Error' });
    const events = await eventsIn(client, ns, 'placement');
    expect(events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'InvalidObject' }));
    for (const e of events) expect(e.message ?? '').not.toMatch(REQUEST_LINE);
  });

  it('a missing Secret is named in InputReady', async () => {
    const { client } = suite;
    const ns = suite.namespaces[1]!;
    await createPlacementAPI(client, ns, { secret: 'not-there' });
    await waitForCondition(client, ns, 'InputReady', 'False', { message: /not-there/ });
  });

  it('records Events for what it creates', async () => {
    const { client } = suite;
    const ns = suite.namespaces[2]!;
    await createPrerequisites(client, ns);
    await createPlacementAPI(client, ns);
    const created = await waitUntil('a SuccessfulCreate Event for the db-create Job', async () =>
      (await eventsIn(client, ns, 'placement')).find(
        (e) => e.reason === 'SuccessfulCreate' && e.message === 'Created Job placement-db-create',
      ),
    );
    expect(created.type).toBe('Normal');
  });
});
