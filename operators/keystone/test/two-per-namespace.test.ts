import { setTimeout as sleep } from 'node:timers/promises';
import { Kinds, type KubeClient } from '@stackops/lib-common/client';
import { controllerOf } from '@stackops/lib-common/objects';
import { writesOver } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { getObject, useOperator } from './support/harness.js';
import {
  conditionOf,
  createKeystone,
  isReady,
  preparedNamespace,
  waitForKeystone,
  waitForKeystoneReady,
} from './support/keystone.js';

/** How long the writes of a settled namespace are counted. */
const WINDOW_MS = 10_000;
/**
 * The operator's Jobs in the namespace. The trust-flush CronJob's runs are left out: its default
 * schedule (`1 * * * *`) starts one whenever the test spans minute 1 of an hour.
 */
const operatorJobUids = async (client: KubeClient, ns: string) =>
  (await client.list(Kinds.Job, { namespace: ns })).items
    .filter((j) => !j.metadata.ownerReferences?.some((r) => r.kind === 'CronJob'))
    .map((j) => j.metadata.uid)
    .sort();

describe('two KeystoneAPIs in one namespace', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('the second is refused with a condition and writes nothing; nothing of the first is touched, even when the second is deleted', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    const first = await createKeystone(client, ns);
    await waitForKeystoneReady(client, ns);
    const secretBefore = await getObject(client, Kinds.Secret, ns, 'keystone');
    const jobsBefore = await operatorJobUids(client, ns);
    expect((secretBefore && controllerOf(secretBefore))?.uid).toBe(first.metadata.uid);

    await createKeystone(client, ns, {}, 'keystone-second');
    const second = await waitForKeystone(
      client,
      ns,
      'the second refused',
      (cr) =>
        conditionOf(cr, 'Ready')?.status === 'False' &&
        /only one KeystoneAPI per namespace/.test(conditionOf(cr, 'Ready')?.message ?? ''),
      { name: 'keystone-second' },
    );
    expect(conditionOf(second, 'Ready')).toMatchObject({ severity: 'Error' });
    expect(conditionOf(second, 'Ready')?.message).toContain(`KeystoneAPI keystone already runs in ${ns}`);
    expect(second.metadata.finalizers ?? []).toEqual([]);

    // A bounded number of writes over the window (the storm this replaces was ~95 writes/s).
    // Counted in this namespace: a file that ran before may leave namespaces finalising.
    await sleep(1_000);
    expect(await writesOver(suite.operator.manager.client, ns, WINDOW_MS)).toBeLessThanOrEqual(2);

    const secretAfter = await getObject(client, Kinds.Secret, ns, 'keystone');
    expect((secretAfter && controllerOf(secretAfter))?.uid).toBe(first.metadata.uid);
    expect(secretAfter?.metadata.resourceVersion).toBe(secretBefore?.metadata.resourceVersion);

    await client.delete(KeystoneKinds.KeystoneAPI, { namespace: ns, name: 'keystone-second' });
    await sleep(3_000);
    const jobsAfter = await operatorJobUids(client, ns);
    expect(jobsAfter).toEqual(jobsBefore);
    expect(isReady((await getObject(client, KeystoneKinds.KeystoneAPI, ns, 'keystone')) as never)).toBe(true);
  });
});
