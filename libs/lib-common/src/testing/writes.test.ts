import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { FakeKubeClient } from './fake.js';
import { countWritesIn, writesOver } from './writes.js';

const cm = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
});

describe('countWritesIn', () => {
  it('counts every kind of write into its namespace only, and nothing once stopped', async () => {
    const client = new FakeKubeClient();
    const counted = countWritesIn(client, 'mine');
    await client.create(Kinds.ConfigMap, cm('mine', 'a'));
    await client.create(Kinds.ConfigMap, cm('theirs', 'a'));
    await client.apply(Kinds.ConfigMap, cm('mine', 'b'));
    await client.patch(Kinds.ConfigMap, { namespace: 'mine', name: 'a' }, { data: { k: 'v' } }, 'merge');
    await client.patch(Kinds.ConfigMap, { namespace: 'theirs', name: 'a' }, { data: { k: 'v' } }, 'merge');
    await client.delete(Kinds.ConfigMap, { namespace: 'theirs', name: 'a' });
    await client.get(Kinds.ConfigMap, { namespace: 'mine', name: 'a' });
    await client.delete(Kinds.ConfigMap, { namespace: 'mine', name: 'b' });
    expect(counted.count()).toBe(4);
    counted.stop();
    await client.delete(Kinds.ConfigMap, { namespace: 'mine', name: 'a' });
    expect(counted.count()).toBe(4);
    expect(client.calls.filter((c) => c.verb === 'delete')).toHaveLength(3);
  });

  it('writesOver counts the writes into the namespace during its window only', async () => {
    const client = new FakeKubeClient();
    const window = writesOver(client, 'mine', 50);
    await client.create(Kinds.ConfigMap, cm('mine', 'a'));
    await client.create(Kinds.ConfigMap, cm('theirs', 'a'));
    expect(await window).toBe(1);
    await client.create(Kinds.ConfigMap, cm('mine', 'b'));
    expect(client.calls.filter((c) => c.verb === 'create')).toHaveLength(3);
  });
});
