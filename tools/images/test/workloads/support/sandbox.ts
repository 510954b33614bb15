import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Containers without a container runtime, for testing the workload images' root filesystems on the
 * host (as root): each container is a chroot into an overlay of the image's layer trees (a private
 * upper directory, so the cached layers are never written), in its own mount, PID and UTS
 * namespaces; the containers of one `Node` share a network namespace that has only a loopback
 * interface, so whatever they listen on is reachable from each other as 127.0.0.1 and from nowhere
 * else. Like runc, the process gets the container's uid/gid, the user's groups from the image,
 * runc's default capabilities minus the dropped ones, `no_new_privs` when privilege escalation is
 * not allowed, and stdout/stderr it may reopen (`/dev/stdout`).
 */

/** containerd's default capability set (what a container gets unless it drops some). */
const DEFAULT_CAPABILITIES = [
  'chown',
  'dac_override',
  'fsetid',
  'fowner',
  'mknod',
  'net_raw',
  'setgid',
  'setuid',
  'setfcap',
  'setpcap',
  'net_bind_service',
  'sys_chroot',
  'kill',
  'audit_write',
];

interface Mount {
  /** A file or folder on the host. */
  source: string;
  /** Where it appears in the container. */
  target: string;
  readOnly?: boolean;
}

export interface ContainerSpec {
  /** Names the container's folder and its hostname. */
  name: string;
  /** The image's layer trees, bottom first. */
  layers: readonly string[];
  /** The full command line (image entrypoint + cmd, or the pod's command + args). */
  command: readonly string[];
  /** The image's env, then the container's (later wins). */
  env?: Record<string, string>;
  uid?: number;
  gid?: number;
  /** `allowPrivilegeEscalation: false`. */
  noNewPrivileges?: boolean;
  /** `capabilities.drop`, e.g. ['MKNOD'] or ['ALL']. */
  dropCapabilities?: readonly string[];
  mounts?: readonly Mount[];
  workingDir?: string;
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Looks a user up in the image (its /etc/passwd and /etc/group come from the layer trees). */
function imageFile(layers: readonly string[], path: string): string {
  for (const tree of [...layers].reverse()) {
    const file = join(tree, path);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  throw new Error(`no ${path} in the image`);
}

/** The supplementary groups a runtime gives `uid`: those that list its user name in /etc/group. */
function supplementaryGroups(layers: readonly string[], uid: number, gid: number): number[] {
  const user = imageFile(layers, 'etc/passwd')
    .split('\n')
    .map((l) => l.split(':'))
    .find((f) => Number(f[2]) === uid)?.[0];
  const groups = new Set([gid]);
  if (user === undefined) return [...groups];
  for (const line of imageFile(layers, 'etc/group').split('\n')) {
    const [, , id, members] = line.split(':');
    if (members?.split(',').includes(user)) groups.add(Number(id));
  }
  return [...groups];
}

export interface Process {
  name: string;
  /** The container's first process, as the host sees it. */
  hostPid(): number | undefined;
  /** Everything the container wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number>;
  stop(): Promise<void>;
}

export class Node {
  private readonly holder: ChildProcess;
  readonly dir: string;
  private readonly processes: Process[] = [];

  private constructor(
    holder: ChildProcess,
    dir: string,
    /** Names that resolve to 127.0.0.1 in every container (the Services a test needs). */
    private readonly hosts: readonly string[],
  ) {
    this.holder = holder;
    this.dir = dir;
  }

  /** A network namespace with only `lo` up, held by a sleeping process until `close`. */
  static async start(hosts: readonly string[] = []): Promise<Node> {
    const dir = mkdtempSync(join(tmpdir(), 'workload-node-'));
    const holder = spawn('unshare', ['--net', '--fork', '--kill-child', '--', 'sleep', 'infinity'], {
      stdio: 'ignore',
    });
    const node = new Node(holder, dir, hosts);
    for (let i = 0; i < 50 && !existsSync(`/proc/${holder.pid}/ns/net`); i++) await sleep(20);
    // unshare moved itself into the new namespace before forking; wait until it has.
    for (let i = 0; i < 100; i++) {
      const code = await node.exec(['ip', 'link', 'set', 'lo', 'up']).catch(() => 1);
      if (code === 0) break;
      await sleep(20);
    }
    return node;
  }

  get netns(): string {
    return `/proc/${this.holder.pid}/ns/net`;
  }

  /** Runs a host program inside the network namespace (e.g. curl against 127.0.0.1). */
  exec(argv: readonly string[]): Promise<number> {
    return new Promise((resolve, reject) => {
      const child = spawn('nsenter', [`--net=${this.netns}`, '--', ...argv], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? 1));
    });
  }

  /** An HTTP request from inside the namespace (curl on the host): status code and body. */
  async http(
    url: string,
    opts: { headers?: Record<string, string>; timeoutSeconds?: number } = {},
  ): Promise<{ status: number; body: string }> {
    const args = ['-s', '-o', '-', '-w', '\n%{http_code}', '--max-time', String(opts.timeoutSeconds ?? 60)];
    for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
    // curl runs on the host: the containers' host names are given to it as they are to them
    const target = new URL(url);
    if (this.hosts.includes(target.hostname)) {
      args.push('--resolve', `${target.hostname}:${target.port || 80}:127.0.0.1`);
    }
    const out = await new Promise<string>((resolve) => {
      const child = spawn('nsenter', [`--net=${this.netns}`, '--', 'curl', ...args, url]);
      const chunks: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => chunks.push(b));
      child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    const at = out.lastIndexOf('\n');
    return { status: Number(out.slice(at + 1)) || 0, body: out.slice(0, at) };
  }

  /** Starts a container; see `ContainerSpec`. */
  run(spec: ContainerSpec): Process {
    const dir = join(this.dir, `${spec.name}-${this.processes.length}`);
    const root = join(dir, 'root');
    for (const d of ['upper', 'work', 'root']) mkdirSync(join(dir, d), { recursive: true });
    const uid = spec.uid ?? 0;
    const gid = spec.gid ?? uid;
    const drop = new Set((spec.dropCapabilities ?? []).map((c) => c.toLowerCase()));
    const caps = drop.has('all') ? [] : DEFAULT_CAPABILITIES.filter((c) => !drop.has(c));
    const lowerdir = [...spec.layers].reverse().join(':');
    const lines = [
      'set -euo pipefail',
      // the host's view of this process (the container's PID 1), before /proc is replaced
      `read -r hostpid _ </proc/self/stat; echo "$hostpid" >${quote(join(dir, 'pid'))}`,
      'mount --make-rprivate /',
      `mount -t overlay overlay -o ${quote(`lowerdir=${lowerdir},upperdir=${dir}/upper,workdir=${dir}/work`)} ${quote(root)}`,
      `R=${quote(root)}`,
      'mount -t proc proc "$R/proc"',
      'mount -t tmpfs -o mode=755 tmpfs "$R/dev"',
      'for n in null zero full random urandom tty; do touch "$R/dev/$n"; mount --bind "/dev/$n" "$R/dev/$n"; done',
      'mkdir -p "$R/dev/shm" "$R/dev/pts"; mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"',
      'ln -s /proc/self/fd "$R/dev/fd"; ln -s /proc/self/fd/0 "$R/dev/stdin"',
      'ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"',
      'mount -t sysfs -o ro sysfs "$R/sys" 2>/dev/null || true',
      `hostname ${quote(spec.name)}`,
      // what kubelet writes into every container: the pod's name, the cluster DNS (here: hosts)
      `printf '%s\\n' ${quote(`127.0.0.1 localhost ${spec.name} ${this.hosts.join(' ')}`)} '::1 localhost' >"$R/etc/hosts"`,
      `echo ${quote(spec.name)} >"$R/etc/hostname"`,
      ': >"$R/etc/resolv.conf"',
    ];
    for (const m of spec.mounts ?? []) {
      const target = `"$R"${quote(m.target)}`;
      lines.push(
        `if [ -d ${quote(m.source)} ]; then mkdir -p ${target}; else mkdir -p "$(dirname ${target})"; touch ${target}; fi`,
        `mount --bind ${quote(m.source)} ${target}`,
      );
      if (m.readOnly) lines.push(`mount -o remount,bind,ro ${target}`);
    }
    const env = Object.entries(spec.env ?? {}).map(([k, v]) => quote(`${k}=${v}`));
    const setpriv = [
      '/usr/bin/setpriv',
      ...(uid === 0
        ? []
        : [
            `--reuid=${uid}`,
            `--regid=${gid}`,
            `--groups=${supplementaryGroups(spec.layers, uid, gid).join(',')}`,
          ]),
      `--bounding-set=-all${caps.map((c) => `,+${c}`).join('')}`,
      ...(spec.noNewPrivileges ? ['--no-new-privs'] : []),
      '--',
    ];
    lines.push(
      // runc hands stdio to the container's user, so that it can reopen /dev/stdout
      `chown ${uid}:${gid} /proc/self/fd/1 /proc/self/fd/2`,
      `exec chroot "$R" ${setpriv.join(' ')} /usr/bin/env -i ${env.join(' ')} sh -c ${quote(
        `cd ${quote(spec.workingDir ?? '/')} && exec "$@"`,
      )} ${quote(spec.name)} ${spec.command.map(quote).join(' ')}`,
    );
    const script = join(dir, 'start.sh');
    writeFileSync(script, `${lines.join('\n')}\n`);
    chmodSync(script, 0o755);
    // stdout and stderr go to a file, as a runtime's do (through a FIFO to its log): a process may
    // reopen them by name (httpd's `ErrorLog /dev/stdout`), which a socket would not allow.
    const log = join(dir, 'output.log');
    const fd = openSync(log, 'a');
    const child = spawn(
      'nsenter',
      [`--net=${this.netns}`, '--', 'unshare', '--mount', '--pid', '--uts', '--fork', '--', 'bash', script],
      { stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 128)));
    const hostPid = () => {
      try {
        return Number(readFileSync(join(dir, 'pid'), 'utf8'));
      } catch {
        return undefined;
      }
    };
    let done = false;
    void exited.then(() => {
      done = true;
    });
    const process: Process = {
      name: spec.name,
      hostPid,
      output: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
      exited,
      // The container's PID 1 ends its PID namespace, and with it every process of the container.
      stop: async () => {
        if (done) return;
        const pid = hostPid();
        if (pid) {
          try {
            globalThis.process.kill(pid, 'SIGKILL');
          } catch {}
        }
        await Promise.race([exited, sleep(10_000)]);
      },
    };
    this.processes.push(process);
    return process;
  }

  /** Runs a container to its end; rejects (with its output) when it exits non-zero or times out. */
  async runToCompletion(spec: ContainerSpec, timeoutMs = 300_000): Promise<string> {
    const p = this.run(spec);
    const code = await Promise.race([p.exited, sleep(timeoutMs).then(() => -1)]);
    if (code === -1) {
      await p.stop();
      throw new Error(`${spec.name} did not end within ${timeoutMs / 1000}s:\n${p.output()}`);
    }
    if (code !== 0) throw new Error(`${spec.name} exited with ${code}:\n${p.output()}`);
    return p.output();
  }

  /** Stops every container, then the namespace; removes the containers' folders. */
  async close(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    this.holder.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
