import Table from 'cli-table3';
import { seconds } from './steps.js';

/** Colours only on a terminal: logs and CI get plain text. */
const style = process.stdout.isTTY && !process.env['NO_COLOR'] ? {} : { head: [], border: [] };

import type { WorkloadPod } from './openstack-pods.js';
import type { OperatorPod } from './operator-pods.js';
import type { TargetResult } from './wait.js';

/** Each custom resource: its conditions, the objects it owns, and how long it took. */
export function summaryTable(results: TargetResult[], owned: Map<string, Map<string, number>>): string {
  const table = new Table({
    head: ['resource', 'conditions', 'owns', 'took'],
    wordWrap: true,
    colWidths: [34, 46, 34, 8],
    style,
  });
  for (const r of results) {
    const conds = r.conditions.map((c) => `${c.type}=${c.status}`).join('\n') || '(none)';
    const uid = r.object?.metadata.uid;
    const counts = uid ? owned.get(uid) : undefined;
    const owns = counts && counts.size > 0 ? [...counts].map(([k, n]) => `${n} ${k}`).join('\n') : '-';
    table.push([
      r.target.label,
      conds,
      owns,
      r.done && r.tookMs !== undefined ? seconds(r.tookMs) : 'not done',
    ]);
  }
  return table.toString();
}

/** The Keystone catalogue, like `openstack endpoint list`. */
export function catalogueTable(
  rows: { service: string; type: string; interface: string; url: string; region: string }[],
): string {
  const table = new Table({ head: ['service', 'type', 'interface', 'region', 'url'], style });
  for (const r of rows) table.push([r.service, r.type, r.interface, r.region, r.url]);
  return table.toString();
}

/** The operator pods: where they run, whether Ready, and whether their image is the one built here. */
export function podsTable(pods: OperatorPod[], builtImages: Map<string, string>): string {
  const table = new Table({ head: ['pod', 'node', 'ready', 'restarts', 'image', 'built here'], style });
  for (const p of pods)
    table.push([
      p.name,
      p.node,
      p.ready ? 'Ready' : 'not Ready',
      String(p.restarts),
      p.image,
      builtImages.get(p.image) === p.imageID ? `yes (${p.imageID.slice(0, 19)})` : `NO (${p.imageID})`,
    ]);
  return table.toString();
}

/** The pods of what the operators deployed: node, state, restarts, image. */
export function workloadPodsTable(pods: WorkloadPod[]): string {
  const table = new Table({ head: ['pod', 'node', 'state', 'restarts', 'image'], style });
  for (const p of pods) table.push([p.name, p.node, p.state, String(p.restarts), p.image]);
  return table.toString();
}
