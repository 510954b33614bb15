import { join } from 'node:path';
import { clusterLayout } from '../cluster/layout.js';
import { readState } from '../cluster/state.js';

/**
 * The command line of the cluster's ovs-vsctl with `args`, for `runInRealNode` / `node-exec` (the
 * node's /run/openvswitch/db.sock is its default database).
 */
export function ovsVsctl(cluster: string, args: readonly string[]): string[] {
  const install = readState(clusterLayout(cluster))?.ovs;
  if (!install) throw new Error(`cluster ${cluster} runs no Open vSwitch (start it with ovs: true / --ovs)`);
  return ['env', `LD_LIBRARY_PATH=${install.libraryPath}`, join(install.root, 'usr/bin/ovs-vsctl'), ...args];
}
