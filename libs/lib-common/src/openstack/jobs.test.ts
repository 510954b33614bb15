import { describe, expect, it } from 'vitest';
import { Conditions } from '../conditions/conditions.js';
import { decideJobAction, type JobObject, jobHash, markJobCondition } from './jobs.js';

const H = 'hash-new';
const job = (
  hash: string | undefined,
  status: JobObject['status'] = {},
  extra: Partial<JobObject> = {},
): JobObject => ({
  metadata: { name: 'db-sync', namespace: 'ns', annotations: hash ? { 'stackops.io/job-hash': hash } : {} },
  spec: { ttlSecondsAfterFinished: 600 },
  status,
  ...extra,
});

describe('decideJobAction', () => {
  it.each<[string, string | undefined, JobObject | null, number | null, ReturnType<typeof decideJobAction>]>([
    ['unchanged, Job gone (TTL-deleted)', H, null, 600, { do: 'nothing', state: 'succeeded' }],
    [
      'unchanged, Job kept with the right TTL',
      H,
      job(H, { succeeded: 1 }),
      600,
      { do: 'nothing', state: 'succeeded' },
    ],
    [
      'unchanged, preserveJobs switched on',
      H,
      job(H, { succeeded: 1 }),
      null,
      { do: 'patch-ttl', state: 'succeeded', ttl: null },
    ],
    [
      'unchanged, TTL changed',
      H,
      job(H, { succeeded: 1 }),
      60,
      { do: 'patch-ttl', state: 'succeeded', ttl: 60 },
    ],
    ['first run', undefined, null, 600, { do: 'create', state: 'running' }],
    ['changed, no Job', 'hash-old', null, 600, { do: 'create', state: 'running' }],
    [
      'changed, old Job succeeded',
      'hash-old',
      job('hash-old', { succeeded: 1 }),
      600,
      { do: 'delete', state: 'running', why: 'the Job was created from another pod spec' },
    ],
    [
      'changed, old Job failed',
      'hash-old',
      job('hash-old', { failed: 3, conditions: [{ type: 'Failed', status: 'True' }] }),
      600,
      { do: 'delete', state: 'running', why: 'the Job was created from another pod spec' },
    ],
    [
      'changed, old Job still active: let it finish',
      'hash-old',
      job('hash-old', { active: 1 }),
      600,
      { do: 'nothing', state: 'running' },
    ],
    [
      'changed, Job being deleted',
      'hash-old',
      job('hash-old', {}, { metadata: { name: 'j', deletionTimestamp: 'x' } }),
      600,
      { do: 'nothing', state: 'running' },
    ],
    ['our Job pending', undefined, job(H, {}), 600, { do: 'nothing', state: 'running' }],
    ['our Job active', undefined, job(H, { active: 1 }), 600, { do: 'nothing', state: 'running' }],
    [
      'our Job active after a failed attempt',
      undefined,
      job(H, { active: 1, failed: 1 }),
      600,
      { do: 'nothing', state: 'running' },
    ],
    [
      'our Job succeeded (count)',
      undefined,
      job(H, { succeeded: 1 }),
      600,
      { do: 'nothing', state: 'succeeded' },
    ],
    [
      'our Job complete (condition)',
      undefined,
      job(H, { conditions: [{ type: 'Complete', status: 'True' }] }),
      600,
      { do: 'nothing', state: 'succeeded' },
    ],
    [
      'our Job failed an attempt',
      undefined,
      job(H, { failed: 2 }),
      600,
      { do: 'nothing', state: 'failed', message: 'Job Attempt #2 Failed. Check job logs' },
    ],
    [
      'our Job hit its backoff limit',
      undefined,
      job(H, { failed: 7, conditions: [{ type: 'Failed', status: 'True' }] }),
      600,
      {
        do: 'nothing',
        state: 'failed',
        message: 'Job has reached the specified backoff limit. Check job logs',
      },
    ],
  ])('%s', (_n, previousHash, existing, ttl, expected) => {
    expect(decideJobAction({ hash: H, previousHash, existing, ttl })).toEqual(expected);
  });
});

describe('jobHash', () => {
  const base: JobObject = {
    metadata: { name: 'j', labels: { a: '1' } },
    spec: {
      template: { metadata: { labels: { x: '1' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };

  it('covers the pod spec only', () => {
    const relabelled: JobObject = {
      ...base,
      metadata: { name: 'j', labels: { b: '2' } },
      spec: {
        ...base.spec,
        template: { ...base.spec?.template, metadata: { labels: { 'controller-uid': 'u' } } },
        backoffLimit: 3,
      },
    };
    expect(jobHash(relabelled)).toBe(jobHash(base));
  });

  it('treats an empty pull policy as IfNotPresent and changes with the pod spec', () => {
    const explicit: JobObject = {
      ...base,
      spec: {
        template: { spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent' }] } },
      },
    };
    const other: JobObject = {
      ...base,
      spec: { template: { spec: { containers: [{ name: 'c', image: 'i2' }] } } },
    };
    expect(jobHash(explicit)).toBe(jobHash(base));
    expect(jobHash(other)).not.toBe(jobHash(base));
  });
});

describe('markJobCondition', () => {
  it.each([
    [
      'running',
      { status: 'False', reason: 'Requested', severity: 'Info', message: 'DBsync job still running' },
    ],
    [
      'failed',
      { status: 'False', reason: 'Error', severity: 'Warning', message: 'DBsync job error occurred boom' },
    ],
    ['succeeded', { status: 'True', reason: 'Ready', message: 'DBsync completed' }],
  ] as const)('%s', (state, expected) => {
    const conds = markJobCondition(new Conditions(), 'DBSyncReady', {
      state,
      hash: 'h',
      changed: true,
      message: 'boom',
    });
    expect(conds.get('DBSyncReady')).toMatchObject(expected);
  });
});
