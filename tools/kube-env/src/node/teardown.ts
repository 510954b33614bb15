/**
 * What a real node changes outside its cluster's folder, and how every change is undone.
 *
 * Used by `down`, by the exit handlers of a test process and by the watchdog when that process was
 * killed; so it is synchronous and imports only Node's own modules (Node runs the .ts source
 * directly when the package is used from src/ under vitest).
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Everything the teardown of one cluster's real node needs, written before anything is created. */
export interface NodeRecord {
  cluster: string;
  clusterRoot: string;
  /** Name under /run/netns of the first node's namespace (which holds the control plane). */
  netns: string;
  /** Every node's network namespace (the first included), under /run/netns. */
  nodeNetns: string[];
  /** Every node's pinned mount namespace (a file under the cluster's folder). */
  mountNamespaces: string[];
  /** The cgroup, in every hierarchy, holding the node's daemons and kubelet's kubepods. */
  cgroupRoot: string;
  /** Runtime state removed on teardown, folders or sockets (containerd's image store is kept for the next start). */
  runtimeDirs: string[];
  /** The machine-wide record of kernel values and host paths (shared by every cluster's real node). */
  hostRecord: string;
  /** Processes started for the node (pid file + the executable the pid must still run). */
  processes: Array<{ pidFile: string; executable: string }>;
}

/** Kernel values kubelet insists on (it refuses to start with protectKernelDefaults when they differ). */
export const kubeletKernelValues: Readonly<Record<string, number>> = {
  'vm/overcommit_memory': 1,
  'vm/panic_on_oom': 0,
  'kernel/panic': 10,
  'kernel/panic_on_oops': 1,
  'kernel/keys/root_maxkeys': 1_000_000,
  'kernel/keys/root_maxbytes': 25_000_000,
};

/**
 * Kernel limits several real nodes outgrow: each kubelet, kube-proxy and containerd holds inotify
 * instances (about 12 per node), and the default 128 per user ran out with a few clusters at once
 * (`too many open files`). Raised to at least these values, as kind advises for its nodes, and put
 * back with the others by the last real node to stop.
 */
export const nodeKernelMinimums: Readonly<Record<string, number>> = {
  'fs/inotify/max_user_instances': 512,
  'fs/inotify/max_user_watches': 524_288,
};

/** Every kernel value a real node may change, as recorded and put back. */
export const recordedKernelValues = [...Object.keys(kubeletKernelValues), ...Object.keys(nodeKernelMinimums)];

/**
 * The standard host paths a node's containerd and kubelet use: each node binds its own folder over
 * them in its mount namespace (layout.ts), so on the machine they only need to exist; those that
 * did not are created by the first real node and removed by the last.
 */
export const hostPaths = [
  '/etc/cni/net.d',
  // multus' DaemonSet mounts it (its delegates' configuration folder)
  '/etc/cni/multus',
  '/opt/cni/bin',
  '/var/lib/cni',
  '/var/lib/kubelet',
  '/run/netns',
  '/run/containerd',
  '/var/log/containers',
  '/run/openvswitch',
  '/run/multus',
  '/run/k8s.cni.cncf.io',
] as const;

interface HostRecord {
  /** The kernel values before the first real node changed them. */
  sysctls: Record<string, number>;
  /** Host paths that did not exist before the first real node (the topmost missing ancestor of each). */
  created: string[];
  /** Clusters whose real node is using the host now (netns name per cluster). */
  users: Record<string, string>;
}

export function writeNodeRecord(path: string, record: NodeRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

export function readNodeRecord(path: string): NodeRecord | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as NodeRecord;
  } catch {
    return undefined;
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The process exists and has not exited (a zombie counts as gone). The same test as
 * util/process-alive.ts, repeated because this module may only import Node's own modules.
 * @public loaded by cluster/watchdog.ts through a dynamic import knip cannot follow.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = safeRead(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

function readSysctl(name: string): number {
  return Number.parseInt(readFileSync(`/proc/sys/${name}`, 'utf8').trim(), 10);
}

function writeSysctl(name: string, value: number): void {
  writeFileSync(`/proc/sys/${name}`, `${value}\n`);
}

/** The child of the deepest existing ancestor of `path` (what creating `path` would create), if any. */
export function topmostMissing(
  path: string,
  exists: (p: string) => boolean = existsSync,
): string | undefined {
  if (exists(path)) return undefined;
  let missing = path;
  for (let parent = dirname(path); parent !== missing && !exists(parent); parent = dirname(parent)) {
    missing = parent;
  }
  return missing;
}

/** A lock file holding our pid; a dead holder's lock is taken over. Synchronous, for exit handlers. */
function withHostLock<T>(recordPath: string, body: () => T): T {
  const lock = `${recordPath}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(safeRead(lock), 10);
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock} (pid ${holder})`);
      else sleepSync(50);
    }
  }
  try {
    return body();
  } finally {
    rmSync(lock, { force: true });
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function readHostRecord(path: string): HostRecord | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as HostRecord;
  } catch {
    return undefined;
  }
}

/** Drops users whose namespace is gone (a crashed run, a reboot): they hold nothing any more. */
function liveUsers(record: HostRecord): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record.users).filter(([, netns]) => existsSync(`/run/netns/${netns}`)),
  );
}

/**
 * Registers this cluster's real node as a user of the host. The first user records the kernel
 * values and which host paths exist; then kubelet's kernel values are set (kubelet runs with
 * protectKernelDefaults, so it only checks them), and the network namespace is created — under the
 * same lock, since the first `ip netns add` on a machine also sets up the /run/netns mount.
 */
export function prepareHost(record: NodeRecord): void {
  withHostLock(record.hostRecord, () => {
    const previous = readHostRecord(record.hostRecord);
    const users = previous ? liveUsers(previous) : {};
    // A path a running user did not need (an older kube-env) but this one creates is ours to remove too.
    const missing = hostPaths.flatMap((p) => topmostMissing(p) ?? []);
    const current = () => Object.fromEntries(recordedKernelValues.map((k) => [k, readSysctl(k)]));
    const host: HostRecord =
      previous && Object.keys(users).length > 0
        ? {
            ...previous,
            // A value an older kube-env did not record is still the machine's own.
            sysctls: { ...current(), ...previous.sysctls },
            created: [...new Set([...previous.created, ...missing])],
            users,
          }
        : { sysctls: current(), created: missing, users: {} };
    host.users[record.cluster] = record.netns;
    writeFileSync(record.hostRecord, `${JSON.stringify(host, null, 2)}\n`);
    for (const [name, value] of Object.entries(kubeletKernelValues)) {
      if (readSysctl(name) !== value) writeSysctl(name, value);
    }
    for (const [name, value] of Object.entries(nodeKernelMinimums)) {
      if (readSysctl(name) < value) writeSysctl(name, value);
    }
    for (const path of hostPaths) mkdirSync(path, { recursive: true });
    for (const netns of record.nodeNetns) {
      execFileSync('ip', ['netns', 'add', netns], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
  });
}

/** Mount points from /proc/self/mountinfo (octal escapes decoded). */
export function mountPoints(mountinfo: string): Array<{ path: string; fstype: string }> {
  return mountinfo
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const fields = line.split(' ');
      const separator = fields.indexOf('-');
      const decode = (s: string) =>
        s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
      return { path: decode(fields[4] ?? ''), fstype: fields[separator + 1] ?? '' };
    });
}

function cgroupHierarchies(): string[] {
  return mountPoints(safeRead('/proc/self/mountinfo'))
    .filter((m) => m.fstype === 'cgroup' || m.fstype === 'cgroup2')
    .map((m) => m.path);
}

/** Every directory of a cgroup tree, children before parents. */
function cgroupTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => cgroupTree(join(dir, e.name)));
  return [...children, dir];
}

function pidsInCgroups(dirs: string[]): number[] {
  const pids = new Set<number>();
  for (const dir of dirs) {
    for (const line of safeRead(join(dir, 'cgroup.procs')).split('\n')) {
      const pid = Number.parseInt(line, 10);
      if (pid > 0) pids.add(pid);
    }
  }
  return [...pids];
}

function namespaceInode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** Processes in the given namespace (found through /proc/<pid>/ns/<kind>). */
function pidsInNamespace(kind: 'net' | 'mnt', inode: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/${kind}`) === `${kind}:[${inode}]`) pids.push(Number(entry));
    } catch {
      // gone, or a kernel thread
    }
  }
  return pids;
}

function kill(pids: number[]): void {
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** SIGKILLs what `find` returns until it returns nothing (new children of a dying shim included). */
function killUntilEmpty(find: () => number[], what: string, problems: string[]): void {
  const deadline = Date.now() + 15_000;
  for (let pids = find(); pids.length > 0; pids = find()) {
    if (Date.now() > deadline) {
      problems.push(`${what}: processes ${pids.join(', ')} would not die`);
      return;
    }
    kill(pids);
    sleepSync(50);
  }
}

function runQuietly(command: string[], problems: string[]): void {
  const [file, ...args] = command;
  if (!file) return;
  try {
    execFileSync(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    problems.push(`${command.join(' ')}: ${stderr || (error as Error).message}`);
  }
}

function removeRuntimeDirs(record: NodeRecord, problems: string[]): void {
  for (const dir of record.runtimeDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      problems.push(`${dir}: ${(error as Error).message}`);
    }
  }
}

/** The last real node on the machine puts the kernel values back and removes the host paths it created. */
function releaseHost(record: NodeRecord, problems: string[]): void {
  withHostLock(record.hostRecord, () => {
    const host = readHostRecord(record.hostRecord);
    if (!host) return;
    const users = liveUsers(host);
    delete users[record.cluster];
    if (Object.keys(users).length > 0) {
      writeFileSync(record.hostRecord, `${JSON.stringify({ ...host, users }, null, 2)}\n`);
      return;
    }
    for (const [name, value] of Object.entries(host.sysctls)) {
      try {
        if (readSysctl(name) !== value) writeSysctl(name, value);
      } catch (error) {
        problems.push(`restoring ${name}=${value}: ${(error as Error).message}`);
      }
    }
    for (const path of host.created) {
      if (!existsSync(path)) continue;
      if (path === '/run/netns' || path.startsWith('/run/netns/')) {
        // `ip netns` bind-mounts the folder onto itself; only an empty one is ours to remove.
        if (readdirSync('/run/netns').length > 0) continue;
        if (mountPoints(safeRead('/proc/self/mountinfo')).some((m) => m.path === '/run/netns')) {
          runQuietly(['umount', '/run/netns'], problems);
        }
        try {
          rmdirSync('/run/netns');
        } catch (error) {
          problems.push(`/run/netns: ${(error as Error).message}`);
        }
        continue;
      }
      try {
        rmSync(path, { recursive: true, force: true });
      } catch (error) {
        problems.push(`${path}: ${(error as Error).message}`);
      }
    }
    rmSync(record.hostRecord, { force: true });
  });
}

/**
 * Undoes a cluster's real nodes: kills their processes (daemons, shims, containers, anything left
 * in their mount or network namespaces), unmounts what is mounted under the cluster's folder (the
 * mount namespaces' pins: a node's own mounts die with its namespace), deletes the network
 * namespaces and the cgroups, removes the runtime state, and — when it was the last real node on
 * the machine — restores the kernel values and removes the host paths it created.
 * Returns what could not be undone (empty when everything was).
 */
export function teardownRealNode(record: NodeRecord): string[] {
  const problems: string[] = [];
  for (const { pidFile, executable } of record.processes) {
    const pid = Number.parseInt(safeRead(pidFile), 10);
    if (pid > 0 && safeRead(`/proc/${pid}/cmdline`).split('\0')[0] === executable) kill([pid]);
    rmSync(pidFile, { force: true });
  }
  const hierarchies = cgroupHierarchies();
  const cgroupDirs = () => hierarchies.flatMap((h) => cgroupTree(join(h, record.cgroupRoot)));
  killUntilEmpty(() => pidsInCgroups(cgroupDirs()), 'cgroups', problems);
  // Then anything else in a node's namespaces, before its mounts go.
  for (const [kind, file] of [
    ...(record.mountNamespaces ?? []).map((f) => ['mnt', f] as const),
    ...(record.nodeNetns ?? [record.netns]).map((n) => ['net', `/run/netns/${n}`] as const),
  ]) {
    const inode = namespaceInode(file);
    if (inode !== undefined)
      killUntilEmpty(() => pidsInNamespace(kind, inode), `namespace ${file}`, problems);
  }

  const mounts = mountPoints(safeRead('/proc/self/mountinfo'))
    .map((m) => m.path)
    .filter((p) => p.startsWith(`${record.clusterRoot}/`))
    .sort((a, b) => b.length - a.length);
  for (const path of new Set(mounts)) runQuietly(['umount', '--lazy', path], problems);
  for (const netns of record.nodeNetns ?? [record.netns]) {
    if (existsSync(`/run/netns/${netns}`)) runQuietly(['ip', 'netns', 'delete', netns], problems);
  }

  // A cgroup stays busy for a moment after its last process died (until the parent reaps it).
  const cgroupDeadline = Date.now() + 5000;
  for (let left = cgroupDirs(); left.length > 0; left = cgroupDirs()) {
    const errors = left.flatMap((dir) => {
      try {
        rmdirSync(dir);
        return [];
      } catch (error) {
        return [`cgroup ${dir}: ${(error as Error).message}`];
      }
    });
    if (errors.length === 0) continue;
    if (Date.now() > cgroupDeadline) {
      problems.push(...errors);
      break;
    }
    sleepSync(100);
  }
  removeRuntimeDirs(record, problems);
  try {
    releaseHost(record, problems);
  } catch (error) {
    problems.push(`host record: ${(error as Error).message}`);
  }
  return problems;
}
