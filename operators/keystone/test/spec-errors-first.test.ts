import { Kinds } from '@stackops/lib-common/client';
import { eventsIn } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { useOperator } from './support/harness.js';
import {
  conditionOf,
  createDatabaseService,
  createInputSecret,
  createKeystone,
  waitForKeystone,
} from './support/keystone.js';

/**
 * Errors in the spec itself are reported at once, while the Memcached the KeystoneAPI names by
 * default does not exist yet, beside that wait rather than after it (issue 28). The API server
 * refuses what it can check (test/api-validation.test.ts); these get past it.
 */
describe('KeystoneAPI: spec errors before any wait', () => {
  const suite = useOperator({ beforeAll, afterAll });

  /** A namespace with the input Secret and MariaDB's Service, and no memcached at all. */
  async function withoutMemcached(): Promise<string> {
    const ns = await suite.namespace();
    await createInputSecret(suite.client, ns);
    await createDatabaseService(suite.client, ns);
    return ns;
  }

  it('a trustFlushSchedule out of range: InputReady False (Error) naming the field, MemcachedReady reporting its wait beside it, an Event, nothing built', async () => {
    const { client } = suite;
    const ns = await withoutMemcached();
    await createKeystone(client, ns, { trustFlushSchedule: '61 * * * *' });
    const cr = await waitForKeystone(
      client,
      ns,
      'InputReady False naming trustFlushSchedule',
      (c) => conditionOf(c, 'InputReady')?.message?.includes('spec.trustFlushSchedule') ?? false,
    );
    expect(conditionOf(cr, 'InputReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      severity: 'Error',
      message: 'Invalid spec: spec.trustFlushSchedule: minute "61" is outside 0-59',
    });
    expect(conditionOf(cr, 'MemcachedReady')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('Memcached instance has not been provisioned'),
    });
    expect(conditionOf(cr, 'Ready')).toMatchObject({ status: 'False', severity: 'Error' });
    const events = await eventsIn(client, ns);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'Warning',
        reason: 'InvalidSpec',
        message: 'Invalid spec: spec.trustFlushSchedule: minute "61" is outside 0-59',
      }),
    );
    // Nothing is built from a spec known to be wrong: not the db-create Job, not the generated account.
    expect((await client.list(Kinds.Job, { namespace: ns })).items).toEqual([]);
    expect((await client.list(Kinds.Secret, { namespace: ns })).items.map((s) => s.metadata.name)).toEqual([
      'osp-secret',
    ]);
  });

  it('passwordSelectors.database naming a key the Secret lacks: InputReady False (Error) at once, though memcached is missing', async () => {
    const { client } = suite;
    const ns = await withoutMemcached();
    await createKeystone(client, ns, {
      passwordSelectors: { admin: 'AdminPassword', database: 'NoSuchKey' },
    });
    const inputReady = (c: KeystoneAPI) => conditionOf(c, 'InputReady');
    const cr = await waitForKeystone(
      client,
      ns,
      'InputReady False',
      (c) => inputReady(c)?.status === 'False',
    );
    expect(inputReady(cr)?.message).toBe(
      'Input data error occurred spec.passwordSelectors.database: Secret osp-secret has no key NoSuchKey',
    );
    expect([inputReady(cr)?.reason, inputReady(cr)?.severity]).toEqual(['Error', 'Error']);
    expect((await client.list(Kinds.Job, { namespace: ns })).items).toEqual([]);
  });
});
