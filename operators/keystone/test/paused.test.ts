import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { pausedRoundTrip } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { useOperator } from './support/harness.js';
import { createKeystone, isReady, preparedNamespace, waitForKeystone } from './support/keystone.js';

type Deployment = KubeObject & { spec: { replicas?: number } };

describe('KeystoneAPI with the openstack.org/paused annotation', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('nothing written while set (an edited Deployment stays edited), a condition and Events say so, put right once removed', async () => {
    const { client } = suite;
    const ns = await preparedNamespace(suite);
    await createKeystone(client, ns);
    await waitForKeystone(client, ns, 'Ready', isReady, { timeoutMs: 90_000 });
    const deployment = { namespace: ns, name: 'keystone' };
    const replicas = async () => (await client.get<Deployment>(Kinds.Deployment, deployment))?.spec.replicas;
    const outcome = await pausedRoundTrip({
      client,
      operatorClient: suite.operator.manager.client,
      kind: KeystoneKinds.KeystoneAPI,
      ref: { namespace: ns, name: 'keystone' },
      namespaces: [ns],
      edit: async () =>
        void (await client.patch(Kinds.Deployment, deployment, { spec: { replicas: 3 } }, 'merge')),
      edited: async () => (await replicas()) === 3,
    });
    expect(outcome).toEqual({
      writesWhilePaused: 0,
      editKeptWhilePaused: true,
      statusKept: true,
      pausedEvents: 1,
      resumedEvents: 1,
      restored: true,
    });
    expect(await replicas()).toBe(1);
  });
});
