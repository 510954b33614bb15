import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { OvsInstall } from '../node/ovs.js';
import type { RealNodeState } from '../node/real-node.js';
import type { Ports } from './commands.js';
import type { ClusterLayout, componentNames, NodeDaemon } from './layout.js';

/** What `up` records in cluster.json, so that `status`, `down` and `logs` work from another process. */
export interface ClusterState {
  name: string;
  cacheKey: string;
  binDir: string;
  server: string;
  ports: Ports;
  nodes: number;
  startedAt: string;
  /** The pid and command line of each component (the pid files hold the pids too). */
  components: Partial<Record<(typeof componentNames)[number], ComponentState>> & {
    /** Further real nodes' daemons (`kubelet-2`, …); a pattern key, so reads may be undefined. */
    [further: `${NodeDaemon}-${number}`]: ComponentState;
  };
  /** The API server's audit log, when `up` was asked for one. */
  auditLog?: string;
  /** The API server calls admission webhooks (`up --admission-webhooks`). */
  admissionWebhooks?: boolean;
  /** Open vSwitch runs on every real node (`up --ovs`): the extracted packages it runs from. */
  ovs?: OvsInstall;
  /** The controller-manager's node monitor grace period, when `up` was asked for one. */
  nodeMonitorGracePeriodSeconds?: number;
  /** Present when the cluster has a real node (and then the control plane runs in its namespace): the first one. */
  realNode?: RealNodeState;
  /** Every real node, the first included (absent in a state written before there could be several). */
  realNodes?: RealNodeState[];
}

/** How many real nodes a cluster started with this state has. */
export function realNodeCount(state: ClusterState): number {
  return state.realNodes?.length ?? (state.realNode ? 1 : 0);
}

interface ComponentState {
  pid: number;
  command: string[];
  /** What ran the command in the node's namespaces (`nsenter [--mount=…] --net=… --`), if anything. */
  launcher?: string[];
}

export function readState(layout: ClusterLayout): ClusterState | undefined {
  if (!existsSync(layout.stateFile)) return undefined;
  try {
    return JSON.parse(readFileSync(layout.stateFile, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function writeState(layout: ClusterLayout, state: ClusterState): void {
  writeFileSync(layout.stateFile, `${JSON.stringify(state, null, 2)}\n`);
}
