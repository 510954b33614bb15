#!/usr/bin/env node
import { readFileSync } from 'node:fs';

/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time by function and by package, so a
 * finding can be written down without a browser. Usage: profile-summary <file.cpuprofile> [top].
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** `node_modules/<pkg>` (scoped too), `lib-common`, an operator, or `node:` internals. */
export function packageOf(url: string): string {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node:internal';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm?.[1]) {
    const inner = url.slice(url.lastIndexOf('node_modules/'));
    return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(inner)?.[1] ?? nm[1];
  }
  const own = /\/(libs\/[^/]+|operators\/[^/]+|tools\/[^/]+)\//.exec(url);
  return own?.[1] ?? url;
}

export function summarizeProfile(p: Profile, top = 25): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const f = n.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    total += us;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '')}:${f.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const pkg = f.functionName === '(garbage collector)' ? '(gc)' : packageOf(f.url);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
  }
  const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`;
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${ms(us).padStart(10)}  ${k}`);
  return [
    `profile ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s, busy ${ms(total)}`,
    'by package:',
    ...rows(byPkg),
    'by function (self):',
    ...rows(byFn),
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: profile-summary <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(
    `${summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 25))}\n`,
  );
}
