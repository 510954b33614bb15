import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { clusterLayout } from '@stackops/kube-env';

interface ClusterStateFile {
  ports: { etcdClient: number };
  components: Record<string, { command: string[] } | undefined>;
}

const readState = (cluster: string): ClusterStateFile =>
  JSON.parse(readFileSync(clusterLayout(cluster).stateFile, 'utf8')) as ClusterStateFile;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Kills the cluster's kube-apiserver (SIGKILL: a crash, connections reset) and waits until it is gone. */
export async function killApiServer(cluster: string): Promise<void> {
  const layout = clusterLayout(cluster);
  const pid = Number.parseInt(readFileSync(layout.pidFile('kube-apiserver'), 'utf8'), 10);
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 10_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`kube-apiserver ${pid} did not exit`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts the cluster's kube-apiserver again with its recorded command line (same port, same etcd),
 * logging to its log file, with its pid file updated so `kube-env down` still stops it.
 */
export function startApiServer(cluster: string): void {
  const layout = clusterLayout(cluster);
  const command = readState(cluster).components['kube-apiserver']?.command;
  const [file, ...args] = command ?? [];
  if (!file) throw new Error(`no kube-apiserver command recorded for ${cluster}`);
  const fd = openSync(layout.logFile('kube-apiserver'), 'a');
  try {
    const child = spawn(file, args, { cwd: layout.root, detached: true, stdio: ['ignore', fd, fd] });
    child.unref();
    writeFileSync(layout.pidFile('kube-apiserver'), `${child.pid}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Calls etcd's JSON gateway (v3 API over HTTP) on the cluster's etcd client port. */
async function etcd<T>(cluster: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${readState(cluster).ports.etcdClient}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/**
 * Moves etcd's revision forward (writes outside /registry, which the API server ignores) and
 * compacts everything before it: any resourceVersion from before is now gone for good.
 */
export async function advanceAndCompactEtcd(cluster: string, writes = 5): Promise<number> {
  let revision = 0;
  for (let i = 0; i < writes; i++) {
    const r = await etcd<{ header: { revision: string } }>(cluster, '/v3/kv/put', {
      key: b64(`/stackops-test/bump-${i}`),
      value: b64(String(Date.now())),
    });
    revision = Number(r.header.revision);
  }
  await etcd(cluster, '/v3/kv/compaction', { revision: String(revision), physical: true });
  return revision;
}
