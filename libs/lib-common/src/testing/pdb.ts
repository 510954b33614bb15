import { isDeepStrictEqual } from 'node:util';
import { type KindRef, Kinds } from '../client/kinds.js';
import type { KubeObject, ObjectRef } from '../client/types.js';
import { conditionOf, expectCondition } from './conditions.js';
import type { FakeKubeClient } from './fake.js';

/** What `expectPdbFollowsReplicas` drives: the API's kind and object (at 2 replicas), and its passes. */
export interface PdbScenario {
  kind: KindRef;
  ref: ObjectRef;
  /** The `service` label of the API's pods. */
  service: string;
  /** Passes until the CR is Ready (it stops early once Ready is True). */
  converge: () => Promise<unknown>;
  /** One pass (and whatever else the operator's test plays) after a spec change. */
  reconcile: () => Promise<unknown>;
}

/**
 * The PodDisruptionBudget of an OpenStack API (lib-common's `pdb` step), on a fake holding the CR
 * at 2 replicas: converged, Ready and PDBReady are True and the PDB (maxUnavailable 1) selects the
 * API's pods and is controlled by the CR; scaled to 1 replica, the PDB and PDBReady are gone and
 * the CR is still Ready. Throws with what differs.
 */
export async function expectPdbFollowsReplicas(fake: FakeKubeClient, s: PdbScenario): Promise<void> {
  const cr = () => fake.peek(s.kind, s.ref);
  await s.converge();
  expectCondition(cr(), 'Ready', { status: 'True' });
  expectCondition(cr(), 'PDBReady', { status: 'True' });
  const pdb = fake.peek<KubeObject & { spec?: unknown }>(Kinds.PodDisruptionBudget, s.ref);
  const spec = { maxUnavailable: 1, selector: { matchLabels: { service: s.service, owner: s.ref.name } } };
  if (!isDeepStrictEqual(pdb?.spec, spec))
    throw new Error(`PodDisruptionBudget spec is ${JSON.stringify(pdb?.spec)}, not ${JSON.stringify(spec)}`);
  const owner = pdb?.metadata.ownerReferences?.[0];
  if (owner?.kind !== s.kind.kind || owner.name !== s.ref.name || owner.controller !== true)
    throw new Error(
      `PodDisruptionBudget's controller is ${JSON.stringify(owner)}, not ${s.kind.kind} ${s.ref.name}`,
    );

  await fake.patch(s.kind, s.ref, { spec: { replicas: 1 } }, 'merge');
  await s.reconcile();
  await s.converge();
  if (fake.peek(Kinds.PodDisruptionBudget, s.ref)) throw new Error('PodDisruptionBudget kept at 1 replica');
  const pdbReady = conditionOf(cr(), 'PDBReady');
  if (pdbReady) throw new Error(`PDBReady kept at 1 replica: ${JSON.stringify(pdbReady)}`);
  expectCondition(cr(), 'Ready', { status: 'True' });
}
