import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { FakeKubeClient } from './fake.js';
import { expectPdbFollowsReplicas } from './pdb.js';

const Api = { group: 'example.dev', version: 'v1', kind: 'Api', plural: 'apis', namespaced: true };
const ref = { namespace: 'ns', name: 'api' };
const condition = (type: string) => ({ type, status: 'True', reason: 'Ready', message: '' });

/** A fake holding the Api Ready with PDBReady; `pdb` seeds the PodDisruptionBudget the step would write. */
function world(pdb: boolean): FakeKubeClient {
  const fake = new FakeKubeClient();
  fake.seed(Api, {
    metadata: { ...ref, uid: 'u1' },
    spec: { replicas: 2 },
    status: { conditions: [condition('Ready'), condition('PDBReady')] },
  });
  if (pdb)
    fake.seed(Kinds.PodDisruptionBudget, {
      metadata: {
        ...ref,
        ownerReferences: [
          { apiVersion: 'example.dev/v1', kind: 'Api', name: 'api', uid: 'u1', controller: true },
        ],
      },
      spec: { maxUnavailable: 1, selector: { matchLabels: { service: 'svc', owner: 'api' } } },
    });
  return fake;
}

const noop = async () => {};
/** The scenario over the Api `api` whose pods carry service=svc; no pass does anything unless given. */
const scenario = (reconcile = noop) => ({ kind: Api, ref, service: 'svc', converge: noop, reconcile });

describe('expectPdbFollowsReplicas', () => {
  it('passes when the PDB and PDBReady go at one replica', async () => {
    const fake = world(true);
    const scaledDown = async () => {
      await fake.delete(Kinds.PodDisruptionBudget, ref);
      await fake.patch(Api, ref, { status: { conditions: [condition('Ready')] } }, 'merge', {
        subresource: 'status',
      });
    };
    await expectPdbFollowsReplicas(fake, scenario(scaledDown));
  });

  it('names what is missing or kept', async () => {
    await expect(expectPdbFollowsReplicas(world(false), scenario())).rejects.toThrow(
      'PodDisruptionBudget spec is undefined',
    );
    await expect(expectPdbFollowsReplicas(world(true), scenario())).rejects.toThrow(
      'PodDisruptionBudget kept at 1 replica',
    );
  });
});
