import { Kinds } from '@stackops/lib-common/client';
import { eventsIn, failedCondition, REQUEST_LINE, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { useOperator } from './support/harness.js';
import {
  conditionOf,
  createKeystone,
  preparedNamespace,
  waitForKeystone,
  waitForKeystoneCondition,
} from './support/keystone.js';

describe('KeystoneAPI failures say what they are', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it.each([
    [
      'a name of 62 characters (the db-create Job name is too long for its label)',
      'k'.repeat(62),
      {},
      /is invalid: .*must be no more than 63 characters/,
    ],
    [
      'an invalid nodeSelector',
      'keystone',
      { nodeSelector: { 'bad key!': 'x' } },
      /nodeSelector: "bad key!"/,
    ],
  ])(
    '%s: the failing step’s condition is False (Error) naming the object and field, with an Event',
    async (_what, name, spec, expected) => {
      const { client } = suite;
      const ns = await preparedNamespace(suite);
      await createKeystone(client, ns, spec as Partial<KeystoneAPI['spec']>, name);
      const cr = await waitForKeystone(
        client,
        ns,
        'a False condition with reason Error',
        (c) => failedCondition(c) !== undefined,
        {
          name,
        },
      );
      const condition = failedCondition(cr)!;
      // The db-create Job is refused: the database step's condition, not the first one listed.
      expect(condition.type).toBe('DBReady');
      expect(conditionOf(cr, 'TLSInputReady')?.status).not.toBe('False');
      expect(condition.severity).toBe('Error');
      expect(condition.message).toMatch(expected);
      expect(condition.message).toMatch(/^(Job|Service|Deployment|Secret|ConfigMap) /);
      expect(condition.message).not.toMatch(REQUEST_LINE);
      expect(condition.message?.length).toBeLessThanOrEqual(200);
      expect(conditionOf(cr, 'Ready')).toMatchObject({ status: 'False', severity: 'Error' });
      // Events are sent after the status write, without holding the worker: wait for it.
      const events = await waitUntil('the Warning Event', async () => {
        const all = await eventsIn(client, ns, name);
        return all.some((e) => e.type === 'Warning' && e.reason === 'InvalidObject') && all;
      });
      for (const e of events) expect(e.message ?? '').not.toMatch(REQUEST_LINE);
    },
  );

  it('a containerImage with a space: refused (by the API server, or before the Job is built), never "still running"', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    const image = 'quay.io/podified/openstack-keystone with spaces:1';
    const refusedAtAdmission = await createKeystone(client, ns, { containerImage: image }).then(
      () => undefined,
      (err: Error) => err,
    );
    if (refusedAtAdmission) {
      expect(refusedAtAdmission.message).toMatch(/containerImage/);
      return;
    }
    const cr = await waitForKeystone(
      client,
      ns,
      'a False condition with reason Error',
      (c) => failedCondition(c) !== undefined,
      {
        timeoutMs: 90_000,
      },
    );
    const condition = failedCondition(cr)!;
    expect(condition).toMatchObject({ type: 'DBSyncReady', severity: 'Error' });
    expect(condition.message).toMatch(
      /^Job keystone-db-sync is invalid: spec\.template\.spec\.containers\[0\]\.image: ".*": not a valid image reference/,
    );
    expect(await client.get(Kinds.Job, { namespace: ns, name: 'keystone-db-sync' })).toBeUndefined();
  });

  it('a missing Secret is named in InputReady', async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    await createKeystone(client, ns, { secret: 'not-there' });
    const cr = await waitForKeystoneCondition(client, ns, 'InputReady', 'False');
    expect(conditionOf(cr, 'InputReady')?.message).toContain('not-there');
  });

  it('records Events for what it creates', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    await createKeystone(client, ns);
    const created = await waitUntil('a SuccessfulCreate Event for the db-create Job', async () =>
      (await eventsIn(client, ns, 'keystone')).find(
        (e) => e.reason === 'SuccessfulCreate' && e.message === 'Created Job keystone-db-create',
      ),
    );
    expect(created.type).toBe('Normal');
  });

  it('a 300-character value is cut in the condition message (and so in the MESSAGE column)', async () => {
    const { client } = suite;
    const ns = await suite.namespace();
    const secret = `s${'e'.repeat(250)}`;
    await createKeystone(client, ns, { secret });
    const cr = await waitForKeystoneCondition(client, ns, 'InputReady', 'False');
    for (const c of cr.status?.conditions ?? []) expect(c.message?.length ?? 0).toBeLessThanOrEqual(200);
    expect(await client.get(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone' })).toBeDefined();
  });
});
