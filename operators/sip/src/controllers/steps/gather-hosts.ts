import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ReconcileError } from '@stackops/lib-common/runtime';
import { ReadyReason } from '../../api/constants.js';
import { type BareMetalHost, BareMetalHostKind } from '../../api/kinds.js';
import {
  type HostData,
  hostOf,
  hostProblem,
  networkDataBesidesJson,
  type RoleNeeds,
  readHostData,
  type SecretLike,
} from '../../hostdata/host-data.js';
import type { ParseYaml } from '../../hostdata/network-data.js';
import { clusterRefOf } from '../../scheduling/claims.js';
import { type Host, hostKey, schedule } from '../../scheduling/schedule.js';
import { roleNeeds } from '../../services/render.js';
import type { SIPClusterPass } from '../context.js';

type SecretObject = KubeObject & SecretLike;

/** The parser of a pass whose hosts' networkData is all JSON (`parseNetworkData` tries JSON first). */
const jsonOnly: ParseYaml = (text) => JSON.parse(text) as unknown;

/**
 * Schedules the hosts of every role from the cached BareMetalHosts, skipping free hosts whose
 * networkData or BMC cannot serve the role, then checks the hosts the cluster already holds.
 * Fails (Unschedulable) when a role lacks hosts or a held host's data is unusable; both messages
 * name the hosts, Secrets and interfaces involved. A shortage is a Warning (more hosts may come);
 * unusable host data is an Error (the user fixes it).
 */
export async function gatherHosts(p: SIPClusterPass): Promise<void> {
  const sip = p.cr;
  const bmhs = p.cache.list<BareMetalHost>(BareMetalHostKind);
  const byKey = new Map(bmhs.map((b) => [hostKey(hostOf(b)), b]));
  const secrets = (namespace: string, name: string): SecretLike | undefined =>
    p.cache.get<SecretObject>(Kinds.Secret, { namespace, name });
  // Imported here, not at the top, and only when a host's networkData is not JSON: the parser
  // would otherwise be compiled at every start of the operator (ADR 0057), or cost a pass that
  // reads JSON alone ~8 ms.
  const parseYaml = bmhs.some((b) => networkDataBesidesJson(b, secrets))
    ? (await import('@stackops/lib-common/yaml')).parseYaml
    : jsonOnly;
  const data = new Map<string, HostData>();
  const dataOf = (h: Host): HostData => {
    const key = hostKey(h);
    let d = data.get(key);
    if (!d) {
      d = readHostData(byKey.get(key)!, secrets, parseYaml);
      data.set(key, d);
    }
    return d;
  };
  const nodes = sip.spec.nodes ?? {};
  const needs = new Map<string, RoleNeeds>(
    Object.keys(nodes).map((role) => [role, roleNeeds(sip.spec.services, role)]),
  );

  const result = schedule({
    cluster: clusterRefOf(sip),
    nodes,
    hosts: bmhs.map(hostOf),
    problemOf: (h, role) => hostProblem(dataOf(h), needs.get(role)!),
  });
  if (!result.ok) {
    const badInput = result.shortfalls.some((s) => s.unusable.length > 0);
    throw new ReconcileError(result.message, {
      reason: ReadyReason.Unschedulable,
      severity: badInput ? 'Error' : 'Warning',
    });
  }

  const problems = result.roles.flatMap((r) =>
    r.kept.flatMap((h) => {
      const problem = hostProblem(dataOf(h), needs.get(r.role)!);
      return problem ? [`BareMetalHost ${hostKey(h)} (${r.role}): ${problem}`] : [];
    }),
  );
  if (problems.length > 0) {
    throw new ReconcileError(problems.join('; '), { reason: ReadyReason.Unschedulable, severity: 'Error' });
  }
  p.gathered = {
    roles: result.roles,
    released: result.released,
    hostsByRole: new Map(result.roles.map((r) => [r.role, r.hosts.map(dataOf)])),
  };
}
