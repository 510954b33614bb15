import { ROLES } from '../api/constants.js';
import type { NodeSet } from '../api/sipcluster.js';
import { type ClusterRef, claimOf, sameCluster } from './claims.js';
import { formatSelector, selectorMatches } from './selector.js';

/** What the scheduler needs to know about a BareMetalHost. */
export interface Host {
  namespace: string;
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** Why a host cannot serve a role (e.g. its networkData lacks the role's interface), or undefined. */
type HostProblemFn = (host: Host, role: string) => string | undefined;

export interface ScheduleRequest {
  cluster: ClusterRef;
  nodes: Readonly<Record<string, NodeSet>>;
  /** Every BareMetalHost SIP can see (all namespaces). */
  hosts: readonly Host[];
  /** Only consulted for hosts the cluster does not hold yet: held hosts are never swapped silently. */
  problemOf?: HostProblemFn;
}

export interface RoleSchedule {
  role: string;
  requested: number;
  /** The role's hosts after this schedule, sorted by name. */
  hosts: Host[];
  /** Hosts the cluster already held for the role and keeps. */
  kept: Host[];
  /** Hosts newly taken for the role. */
  added: Host[];
}

interface RoleShortfall {
  role: string;
  requested: number;
  missing: number;
  /** Hosts that matched but could not serve the role, with why (bad input on the hosts). */
  unusable: string[];
  message: string;
}

export type ScheduleResult =
  | { ok: true; roles: RoleSchedule[]; released: Host[] }
  | { ok: false; shortfalls: RoleShortfall[]; message: string };

export const hostKey = (h: { namespace: string; name: string }): string => `${h.namespace}/${h.name}`;

/** Stable order: by name, then namespace (deterministic whatever order the API server lists in). */
export function compareHosts(a: Host, b: Host): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return 0;
}

/** ControlPlane, then Worker, then any other role by name. */
export function orderedRoles(nodes: Readonly<Record<string, NodeSet>>): string[] {
  const known: readonly string[] = ROLES;
  const rank = (r: string) => (known.includes(r) ? known.indexOf(r) : known.length);
  return Object.keys(nodes).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

const requestedCount = (set: NodeSet): number => (set.count?.active ?? 0) + (set.count?.standby ?? 0);

/** At most one host per topology domain within a role; hosts without the label are unconstrained. */
class TopologyDomains {
  readonly #used = new Set<string>();
  constructor(readonly key: string | undefined) {}
  domainOf(h: Host): string | undefined {
    if (!this.key) return undefined;
    const d = h.labels[this.key];
    return d ? d : undefined;
  }
  isFree(h: Host): boolean {
    const d = this.domainOf(h);
    return d === undefined || !this.#used.has(d);
  }
  take(h: Host): void {
    const d = this.domainOf(h);
    if (d !== undefined) this.#used.add(d);
  }
}

interface RoleState {
  role: string;
  set: NodeSet;
  requested: number;
  domains: TopologyDomains;
  kept: Host[];
  added: Host[];
}

/**
 * Picks the hosts of every role of a cluster. Pure and deterministic; idempotent: the hosts the
 * cluster already holds for a role count first, so a retry or a restart never takes more than
 * `active + standby`, and held hosts beyond that (or no longer matching) are released.
 *
 * Two passes: (1) every role keeps the hosts it holds that still match its selector and
 * topology, up to its count; (2) roles in order (ControlPlane, Worker) fill what is missing from
 * free hosts (no cluster label) and from this cluster's released hosts, by name. All roles must
 * be complete, or the result is a failure that says which role misses how many hosts and why.
 */
export function schedule(req: ScheduleRequest): ScheduleResult {
  const hosts = [...req.hosts].sort(compareHosts);
  const roles: RoleState[] = orderedRoles(req.nodes).map((role) => {
    const set = req.nodes[role]!;
    return {
      role,
      set,
      requested: requestedCount(set),
      domains: new TopologyDomains(set.topologyKey),
      kept: [],
      added: [],
    };
  });
  const taken = new Set<string>();
  const ours = (h: Host) => {
    const claim = claimOf(h.labels);
    return claim !== undefined && sameCluster(claim, req.cluster);
  };

  for (const r of roles) {
    for (const h of hosts) {
      if (r.kept.length >= r.requested) break;
      const claim = claimOf(h.labels);
      if (!claim || !sameCluster(claim, req.cluster) || claim.role !== r.role) continue;
      if (!selectorMatches(r.set.labelSelector, h.labels) || !r.domains.isFree(h)) continue;
      r.kept.push(h);
      r.domains.take(h);
      taken.add(hostKey(h));
    }
  }

  const shortfalls: RoleShortfall[] = [];
  for (const r of roles) {
    const stats = { matching: 0, otherCluster: 0, otherRole: 0, sameDomain: 0, unusable: [] as string[] };
    for (const h of hosts) {
      if (r.kept.length + r.added.length >= r.requested) break;
      if (!selectorMatches(r.set.labelSelector, h.labels)) continue;
      if (r.kept.includes(h)) continue;
      stats.matching++;
      if (taken.has(hostKey(h))) {
        stats.otherRole++;
        continue;
      }
      if (claimOf(h.labels) && !ours(h)) {
        stats.otherCluster++;
        continue;
      }
      if (!r.domains.isFree(h)) {
        stats.sameDomain++;
        continue;
      }
      const problem = req.problemOf?.(h, r.role);
      if (problem) {
        stats.unusable.push(`${hostKey(h)} (${problem})`);
        continue;
      }
      r.added.push(h);
      r.domains.take(h);
      taken.add(hostKey(h));
    }
    const missing = r.requested - r.kept.length - r.added.length;
    if (missing > 0) shortfalls.push(shortfall(r, missing, stats));
  }

  if (shortfalls.length > 0) {
    return { ok: false, shortfalls, message: shortfalls.map((s) => s.message).join('; ') };
  }
  const released = hosts.filter((h) => ours(h) && !taken.has(hostKey(h)));
  return {
    ok: true,
    released,
    roles: roles.map((r) => ({
      role: r.role,
      requested: r.requested,
      hosts: [...r.kept, ...r.added].sort(compareHosts),
      kept: r.kept,
      added: r.added,
    })),
  };
}

interface ShortfallStats {
  matching: number;
  otherCluster: number;
  otherRole: number;
  sameDomain: number;
  unusable: string[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function shortfall(r: RoleState, missing: number, s: ShortfallStats): RoleShortfall {
  const count = r.set.count ?? { active: 0, standby: 0 };
  const constraint = r.set.topologyKey ? ` and at most one host per ${r.set.topologyKey}` : '';
  const reasons = [`${plural(s.matching + r.kept.length, 'host matches', 'hosts match')}`];
  if (r.kept.length > 0) reasons.push(`${r.kept.length} already held`);
  if (s.otherCluster > 0) reasons.push(`${s.otherCluster} held by other SIPClusters`);
  if (s.otherRole > 0) reasons.push(`${s.otherRole} taken by another role`);
  if (s.sameDomain > 0)
    reasons.push(`${plural(s.sameDomain, 'shares', 'share')} a ${r.set.topologyKey} with a chosen host`);
  if (s.unusable.length > 0) reasons.push(`unusable: ${s.unusable.join(', ')}`);
  const message =
    `${r.role}: ${missing} of ${r.requested} hosts missing (active ${count.active} + standby ${count.standby}) ` +
    `for labelSelector ${formatSelector(r.set.labelSelector)}${constraint}: ${reasons.join('; ')}`;
  return { role: r.role, requested: r.requested, missing, unusable: s.unusable, message };
}
