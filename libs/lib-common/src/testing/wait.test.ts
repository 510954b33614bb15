import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { FakeKubeClient } from './fake.js';
import { describeConditions, describeObject, waitForObject, waitUntil } from './wait.js';

describe('describeObject', () => {
  it('hides Secret values but keeps their keys, and drops managedFields', () => {
    const text = describeObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', managedFields: [{ manager: 'x' }] } as never,
      data: { password: 'c2VjcmV0' },
      stringData: { token: 'plain' },
    });
    expect(text).toContain('"password": "<redacted>"');
    expect(text).toContain('"token": "<redacted>"');
    expect(text).not.toContain('c2VjcmV0');
    expect(text).not.toContain('plain');
    expect(text).not.toContain('managedFields');
  });

  it('shows ConfigMap data as is', () => {
    expect(describeObject({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } })).toContain(
      '"a": "b"',
    );
  });
});

describe('describeConditions', () => {
  it('prints one line per condition', () => {
    const obj = {
      metadata: { name: 'x' },
      status: {
        conditions: [
          { type: 'Ready', status: 'False', severity: 'Error', reason: 'Failed', message: 'db down' },
          { type: 'DBReady', status: 'True' },
        ],
      },
    };
    expect(describeConditions(obj)).toBe('Ready=False (Error) Failed: db down\nDBReady=True');
    expect(describeConditions(undefined)).toBe('(no conditions)');
  });
});

describe('waitUntil', () => {
  it('resolves with the first value that is not undefined or false, retrying probes that throw', async () => {
    let calls = 0;
    const v = await waitUntil(
      'the third call',
      () => {
        calls += 1;
        if (calls === 1) throw new Error('not there yet');
        return calls === 3 ? { calls } : false;
      },
      { intervalMs: 1 },
    );
    expect(v).toEqual({ calls: 3 });
  });

  it('names what it waited for, with the last value or description and the last error', async () => {
    await expect(waitUntil('nothing', () => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /^timed out after 20 ms waiting for nothing; last: false$/,
    );
    await expect(
      waitUntil(
        'a pod',
        () => {
          throw new Error('404');
        },
        { timeoutMs: 20, intervalMs: 5, describe: () => 'pod p: Pending' },
      ),
    ).rejects.toThrow(/waiting for a pod; last error: 404; last: pod p: Pending$/);
  });
});

describe('waitForObject', () => {
  it('resolves with the object once it exists and the check holds; never calls the check without one', async () => {
    const fake = new FakeKubeClient();
    const ref = { namespace: 'ns', name: 'cm' };
    const fast = { timeoutMs: 200, intervalMs: 10 };
    const seen: unknown[] = [];
    await expect(
      waitForObject<KubeObject>(fake, Kinds.ConfigMap, ref, (o) => seen.push(o) > 0, fast),
    ).rejects.toThrow(/timed out after 200 ms .* on ConfigMap ns\/cm\n.*\n\(no conditions\)/);
    expect(seen).toEqual([]);
    fake.seed(Kinds.ConfigMap, { metadata: ref, data: { a: 'b' } } as KubeObject);
    const cm = await waitForObject<KubeObject>(
      fake,
      Kinds.ConfigMap,
      ref,
      (o) => o['data'] !== undefined,
      fast,
    );
    expect(cm.metadata.name).toBe('cm');
  });
});
