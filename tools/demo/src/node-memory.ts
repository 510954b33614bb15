import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlane } from '@stackops/kube-env';
import { run } from './exec.js';

/** What a real node costs: its daemons' RSS and, per pod, the working set the kubelet reports. */
export interface NodeMemory {
  node: string;
  daemons: { name: string; mib: number }[];
  pods: { name: string; mib: number }[];
  totalMib: number;
}

const nodeDaemons = ['containerd', 'kubelet', 'kube-proxy', 'coredns'] as const;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

function rssMib(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

interface StatsSummary {
  pods?: { podRef: { name: string }; memory?: { workingSetBytes?: number } }[];
}

/** Each real node's: daemons from the cluster's state (`/proc/<pid>/status`), pods from its kubelet's `/stats/summary`. */
export async function nodeMemory(cp: ControlPlane): Promise<NodeMemory[]> {
  if (cp.realNodes.length === 0) throw new Error(`cluster ${cp.name} has no real node`);
  return Promise.all(cp.realNodes.map((n) => oneNodeMemory(cp, n.name, n.index)));
}

async function oneNodeMemory(cp: ControlPlane, node: string, index: number): Promise<NodeMemory> {
  const { components } = cp.handle.state;
  // A further node's daemons are `<daemon>-<index>`; CoreDNS runs once, beside the first node.
  const daemons = nodeDaemons.flatMap((name) => {
    const pid =
      index === 1
        ? components[name]?.pid
        : name === 'coredns'
          ? undefined
          : components[`${name}-${index}`]?.pid;
    return pid ? [{ name, mib: rssMib(pid) }] : [];
  });
  const readPods = async () => {
    const raw = await run(cp.kubectl, [
      '--kubeconfig',
      cp.kubeconfigPath,
      'get',
      '--raw',
      `/api/v1/nodes/${node}/proxy/stats/summary`,
    ]);
    return ((JSON.parse(raw) as StatsSummary).pods ?? [])
      .map((p) => ({ name: p.podRef.name, mib: mib(p.memory?.workingSetBytes ?? 0) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  };
  // The kubelet samples a new pod's cgroup some seconds after it starts; until then it reports 0.
  let pods = await readPods();
  for (let i = 0; i < 30 && pods.some((p) => p.mib === 0); i++) {
    await sleep(1000);
    pods = await readPods();
  }
  const totalMib = [...daemons, ...pods].reduce((sum, x) => sum + x.mib, 0);
  return { node, daemons, pods, totalMib };
}

/** A line per node (named when there are several), and their total when there are several. */
export function formatNodeMemory(nodes: NodeMemory[]): string {
  const list = (xs: { name: string; mib: number }[]) => xs.map((x) => `${x.name} ${x.mib} MiB`).join(', ');
  const lines = nodes.map(
    (m) =>
      `Real node memory${nodes.length > 1 ? ` (${m.node})` : ''}: ${m.totalMib} MiB — daemons (RSS): ${list(m.daemons)}; pods (working set): ${list(m.pods)}`,
  );
  if (nodes.length > 1)
    lines.push(`Real nodes memory: ${nodes.reduce((sum, m) => sum + m.totalMib, 0)} MiB in all`);
  return lines.join('\n');
}
