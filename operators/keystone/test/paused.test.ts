import { PAUSED_AS_DOCUMENTED, pausedRoundTrip, scaledDeployment } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { useOperator } from './support/harness.js';
import { readyKeystone } from './support/keystone.js';

describe('KeystoneAPI with the openstack.org/paused annotation', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('nothing written while set (a scaled Deployment stays scaled), a condition and Events say so, put right once removed', async () => {
    const { client, ns } = await readyKeystone(suite);
    const outcome = await pausedRoundTrip({
      client,
      operatorClient: suite.operator.manager.client,
      kind: KeystoneKinds.KeystoneAPI,
      ref: { namespace: ns, name: 'keystone' },
      namespaces: [ns],
      ...scaledDeployment(client, { namespace: ns, name: 'keystone' }),
    });
    expect(outcome).toEqual(PAUSED_AS_DOCUMENTED);
  });
});
