import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/index.js';
import { Conditions } from '../src/conditions/index.js';
import {
  DEFAULT_JOB_TTL_SECONDS,
  JOB_HASH_ANNOTATION,
  type JobObject,
  jobHash,
  markJobCondition,
  runHashGatedJob,
} from '../src/openstack/index.js';
import { waitUntil } from '../src/testing/wait.js';
import { useResourcesNamespace } from './resources-support.js';

const file = useResourcesNamespace({ beforeAll, afterAll, beforeEach, afterEach }, 'res-jobs');

const dbSync = (name: string, command: string): JobObject => ({
  metadata: { name, namespace: file.ns, labels: { service: 'keystone' } },
  spec: {
    backoffLimit: 2,
    template: {
      metadata: { labels: { service: 'keystone' } },
      spec: {
        restartPolicy: 'OnFailure',
        containers: [
          { name: 'db-sync', image: 'registry.invalid/keystone:1', command: ['/bin/bash', '-c', command] },
        ],
      },
    },
  },
});

const getJob = (name: string) => file.client.get<JobObject>(Kinds.Job, { name, namespace: file.ns });

/** Reconciles until the runner reports success, as the operator would on each Job event. */
async function runToSuccess(job: JobObject, previousHash: string | undefined) {
  return waitUntil(`Job ${job.metadata.name} to succeed`, async () => {
    const r = await runHashGatedJob(file.client, file.owner, job, { previousHash });
    return r.state === 'succeeded' ? r : undefined;
  });
}

describe('runHashGatedJob', () => {
  it('creates the Job, reports running, then succeeded with the hash to record; then does nothing', async () => {
    const job = dbSync('db-sync', 'keystone-manage db_sync');
    const first = await runHashGatedJob(file.client, file.owner, job, { previousHash: undefined });
    expect(first).toEqual({ state: 'running', hash: jobHash(job), changed: true });
    expect(markJobCondition(new Conditions(), 'DBSyncReady', first).get('DBSyncReady')).toMatchObject({
      status: 'False',
      message: 'DBsync job still running',
    });

    const live = (await getJob('db-sync')) as JobObject;
    expect(live.metadata.annotations?.[JOB_HASH_ANNOTATION]).toBe(first.hash);
    expect(live.spec?.ttlSecondsAfterFinished).toBe(DEFAULT_JOB_TTL_SECONDS);
    expect(live.metadata.ownerReferences?.[0]).toMatchObject({
      uid: file.owner.metadata.uid,
      controller: true,
    });

    const done = await runToSuccess(job, undefined);
    expect(done.hashToRecord).toBe(first.hash);

    // The hash is now in status: nothing runs again, and no request writes.
    const writes = file.client.requests.writes();
    const settled = await runHashGatedJob(file.client, file.owner, job, {
      previousHash: first.hash,
      current: await getJob('db-sync'),
    });
    expect(settled).toEqual({ state: 'succeeded', hash: first.hash, changed: false });
    expect(file.client.requests.writes() - writes).toBe(0);
  });

  it('preserveJobs removes the TTL from a finished Job once, then stays quiet', async () => {
    const job = dbSync('preserve', 'true');
    const { hashToRecord } = await runToSuccess(job, undefined);
    await runHashGatedJob(file.client, file.owner, job, { previousHash: hashToRecord, preserveJobs: true });
    expect((await getJob('preserve'))?.spec?.ttlSecondsAfterFinished).toBeUndefined();
    const writes = file.client.requests.writes();
    await runHashGatedJob(file.client, file.owner, job, { previousHash: hashToRecord, preserveJobs: true });
    expect(file.client.requests.writes() - writes).toBe(0);
  });

  it('re-runs when the pod spec changes: the old Job is replaced by one with the new hash', async () => {
    const v1 = dbSync('rerun', 'keystone-manage db_sync --v1');
    const first = await runToSuccess(v1, undefined);
    const oldUid = (await getJob('rerun'))?.metadata.uid;

    const v2 = dbSync('rerun', 'keystone-manage db_sync --v2');
    const second = await runToSuccess(v2, first.hashToRecord);
    expect(second.hashToRecord).toBe(jobHash(v2));
    expect(second.hashToRecord).not.toBe(first.hashToRecord);
    const live = await getJob('rerun');
    expect(live?.metadata.uid).not.toBe(oldUid);
    expect(live?.metadata.annotations?.[JOB_HASH_ANNOTATION]).toBe(jobHash(v2));
  });

  it('a finished Job is deleted after its TTL, and is not run again while the hash is unchanged', async () => {
    const job = dbSync('ttl-gone', 'true');
    const { hashToRecord } = await waitUntil('Job ttl-gone to succeed', async () => {
      const r = await runHashGatedJob(file.client, file.owner, job, {
        previousHash: undefined,
        ttlSecondsAfterFinished: 1,
      });
      return r.state === 'succeeded' ? r : undefined;
    });
    expect((await getJob('ttl-gone'))?.spec?.ttlSecondsAfterFinished).toBe(1);
    await waitUntil('the TTL controller to delete the Job', async () =>
      (await getJob('ttl-gone')) ? undefined : true,
    );
    const writes = file.client.requests.writes();
    const r = await runHashGatedJob(file.client, file.owner, job, {
      previousHash: hashToRecord,
      ttlSecondsAfterFinished: 1,
    });
    expect(r).toEqual({ state: 'succeeded', hash: hashToRecord, changed: false });
    expect(file.client.requests.writes() - writes).toBe(0);
    expect(await getJob('ttl-gone')).toBeUndefined();
  });
});
