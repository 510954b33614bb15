import { Kinds, type KubeObject } from '@stackops/lib-common/resources';

type SecretObject = KubeObject & SecretLike;

import { ReadyReason } from '../../api/constants.js';
import { type BareMetalHost, BareMetalHostKind, type SIPCluster } from '../../api/kinds.js';
import {
  type HostData,
  hostOf,
  hostProblem,
  type RoleNeeds,
  readHostData,
  type SecretLike,
} from '../../hostdata/host-data.js';
import type { ClusterRef } from '../../scheduling/claims.js';
import { type Host, hostKey, type RoleSchedule, schedule } from '../../scheduling/schedule.js';
import { roleNeeds } from '../../services/render.js';
import { type StepContext, StepFailure } from '../context.js';

/** The outcome of the gather phase: every role complete, with what was read from each host. */
export interface GatheredHosts {
  roles: RoleSchedule[];
  /** Hosts the cluster holds and no longer needs. */
  released: Host[];
  /** Each role's hosts with their data, by name. */
  hostsByRole: Map<string, HostData[]>;
}

export const clusterRefOf = (sip: SIPCluster): ClusterRef => ({
  namespace: sip.metadata.namespace ?? '',
  name: sip.metadata.name ?? '',
});

/**
 * Gather: schedule the hosts of every role from the cached BareMetalHosts, skipping free hosts
 * whose networkData or BMC cannot serve the role, then check the hosts the cluster already holds.
 * Throws StepFailure (Unschedulable) when a role lacks hosts or a held host's data is unusable;
 * both messages name the hosts, Secrets and interfaces involved.
 */
export function gatherHosts(ctx: StepContext, sip: SIPCluster): GatheredHosts {
  const cluster = clusterRefOf(sip);
  const bmhs = ctx.cache.list<BareMetalHost>(BareMetalHostKind);
  const byKey = new Map(bmhs.map((b) => [hostKey(hostOf(b)), b]));
  const secrets = (namespace: string, name: string): SecretLike | undefined =>
    ctx.cache.get<SecretObject>(Kinds.Secret, { namespace, name });
  const data = new Map<string, HostData>();
  const dataOf = (h: Host): HostData => {
    const key = hostKey(h);
    let d = data.get(key);
    if (!d) {
      d = readHostData(byKey.get(key)!, secrets);
      data.set(key, d);
    }
    return d;
  };
  const nodes = sip.spec.nodes ?? {};
  const needs = new Map<string, RoleNeeds>(
    Object.keys(nodes).map((role) => [role, roleNeeds(sip.spec.services, role)]),
  );

  const result = schedule({
    cluster,
    nodes,
    hosts: bmhs.map(hostOf),
    problemOf: (h, role) => hostProblem(dataOf(h), needs.get(role)!),
  });
  if (!result.ok) {
    const badInput = result.shortfalls.some((s) => s.unusable.length > 0);
    throw new StepFailure(
      ReadyReason.Unschedulable,
      badInput ? 'Error' : 'Warning',
      'Unschedulable',
      result.message,
    );
  }

  const problems = result.roles.flatMap((r) =>
    r.kept.flatMap((h) => {
      const problem = hostProblem(dataOf(h), needs.get(r.role)!);
      return problem ? [`BareMetalHost ${hostKey(h)} (${r.role}): ${problem}`] : [];
    }),
  );
  if (problems.length > 0) {
    throw new StepFailure(ReadyReason.Unschedulable, 'Error', 'InvalidHostData', problems.join('; '));
  }
  return {
    roles: result.roles,
    released: result.released,
    hostsByRole: new Map(result.roles.map((r) => [r.role, r.hosts.map(dataOf)])),
  };
}
