import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { clusterStatus, startControlPlane, stopCluster } from '@stackops/kube-env';
import { afterAll, describe, expect, it } from 'vitest';
import { demoTargets } from '../src/targets.js';

const main = resolve(import.meta.dirname, '../dist/main.js');
const CLUSTER = 'stackops-demo-e2e';
/** Every resource must converge within this budget, measured from when the examples were applied. */
const BUDGET_SECONDS = 300;

interface Scrape {
  url: string;
  status: number;
  body: string;
}

/**
 * Runs the demo; in 'ctrl-c' mode, once it says it keeps running, scrapes the operators' metrics
 * URLs it printed and interrupts it (Ctrl-C).
 */
function runDemo(
  mode: '--exit' | 'ctrl-c',
  extra: string[] = [],
): Promise<{ code: number | null; out: string; scrapes: Scrape[] }> {
  return new Promise((done) => {
    const args = [main, '--name', CLUSTER, '--timeout', String(BUDGET_SECONDS), ...extra];
    if (mode === '--exit') args.push('--exit');
    const child = spawn(process.execPath, args, {
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let interrupting = false;
    const scrapes: Scrape[] = [];
    child.stdout.on('data', (d) => {
      out += String(d);
      if (mode !== 'ctrl-c' || interrupting || !out.includes('Press Ctrl-C')) return;
      interrupting = true;
      const urls =
        out
          .match(/Operator metrics: (.*)/)?.[1]
          ?.trim()
          .split(/\s+/) ?? [];
      void Promise.all(
        urls.map(async (url) => {
          const res = await fetch(url).catch(() => undefined);
          scrapes.push({ url, status: res?.status ?? 0, body: (await res?.text()) ?? '' });
        }),
      ).finally(() => child.kill('SIGINT'));
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.on('exit', (code) => done({ code, out, scrapes }));
  });
}

/** The command line of a pid, to say what a leftover process is. */
const commandOf = (pid: number): string => {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
};

/**
 * Whether a process still runs. A zombie does not: it has exited, and its parent (here the demo,
 * gone too; the machine's init reaps orphans when it gets to it) has not collected its status yet.
 */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

afterAll(async () => {
  await stopCluster(CLUSTER, { purge: true });
});

describe('make demo and a running cluster of the same name', () => {
  it('refuses to replace it unless asked, and leaves it running', async () => {
    const running = await startControlPlane({ name: CLUSTER, fresh: true, detach: true });
    const pids = Object.values(running.handle.state.components).map((c) => c.pid);
    const { code, out } = await runDemo('--exit');
    expect(code, out).toBe(1);
    expect(out).toContain(`a local cluster named "${CLUSTER}" is already running`);
    expect(out).toContain('make demo ARGS=--replace');
    expect(out).not.toContain('==> [1/');
    const status = await clusterStatus(CLUSTER);
    const stillRunning = status.components.filter((c) => c.running).map((c) => c.pid);
    expect(stillRunning.sort()).toEqual([...pids].sort());
    expect(pids.filter(alive)).toEqual(pids);
  });
});

describe('make demo --exit --replace (the operators as pods on the real node)', () => {
  it('replaces the running cluster, runs the four operators as Ready pods from the images built here, converges every example within the budget, prints the summary, and leaves nothing running', async () => {
    const { code, out } = await runDemo('--exit', ['--replace']);
    if (code !== 0) console.log(out);
    expect(code).toBe(0);
    expect(out).toContain(`Replacing the running cluster "${CLUSTER}"`);
    for (const t of demoTargets) {
      const m = out.match(
        new RegExp(`${t.label.replace(/[/.]/g, '\\$&')}: ${t.doneCondition} after ([\\d.]+)s`),
      );
      expect(m, `${t.label} should report ${t.doneCondition}`).not.toBeNull();
      expect(Number(m![1])).toBeLessThan(BUDGET_SECONDS);
    }
    expect(out).toMatch(/resource.*conditions.*owns.*took/);
    // What keystone-operator and placement-operator deployed runs as pods on the real node, from the
    // stand-in images: Keystone and Placement Ready (kubelet's probes answered by httpd), Jobs done.
    expect(out).toMatch(
      /│ keystone-[a-z0-9]+-[a-z0-9]+ +│ real-node +│ Ready +│ 0 +│ localhost\/stackops\/openstack-keystone:/,
    );
    expect(out).toMatch(
      /│ placement-[a-z0-9]+-[a-z0-9]+ +│ real-node +│ Ready +│ 0 +│ localhost\/stackops\/openstack-placement-api:/,
    );
    expect(out).toMatch(/│ keystone-db-sync-[a-z0-9]+ +│ real-node +│ Succeeded /);
    // The catalogue is read in an openstackclient pod from that Keystone: keystone's own endpoints
    // (its bootstrap Job) and placement's, registered by keystone-operator through the Service names.
    expect(out).toContain('`openstack endpoint list` in pod openstack/openstackclient');
    for (const [service, iface, url] of [
      ['keystone', 'internal', 'http://keystone-internal.openstack.svc:5000'],
      ['keystone', 'public', 'http://keystone-public.openstack.svc:5000'],
      ['placement', 'internal', 'http://placement-internal.openstack.svc:8778'],
      ['placement', 'public', 'http://placement-public.openstack.svc:8778'],
    ] as const) {
      expect(out).toMatch(
        new RegExp(`${service} .*│ ${iface} .*│ regionOne .*│ ${url.replace(/[.:/]/g, '\\$&')}`),
      );
    }
    // One row per operator pod: on the real node, Ready, never restarted, its image the one built here.
    const podRows = out.split('\n').filter((l) => /│ stackops-[a-z]+-[a-z0-9]+-[a-z0-9]+ /.test(l));
    expect(podRows.map((l) => l.match(/│ stackops-([a-z]+)-/)?.[1]).sort()).toEqual([
      'keystone',
      'networkaddons',
      'placement',
      'sip',
    ]);
    for (const row of podRows)
      expect(row).toMatch(
        /│ real-node +│ Ready +│ 0 +│ ghcr\.io\/stackops\/[a-z-]+-operator:[\d.]+ +│ yes \(sha256:/,
      );
    expect(out).not.toMatch(/pid \d+ as stackops-system/); // no operator ran as a local process
    // Metrics are on and secure: each pod answers HTTPS with a token the API server authorised.
    const metricsLine = out.split('\n').find((l) => l.startsWith('Operator metrics (https://')) ?? '';
    expect(metricsLine.match(/HTTP 200, [1-9]\d* samples/g), metricsLine).toHaveLength(4);
    const memory = out.match(
      /Real node memory: (\d+) MiB — daemons \(RSS\): (.*); pods \(working set\): (.*)/,
    );
    expect(memory, 'the node memory line').not.toBeNull();
    expect(memory![2]).toMatch(
      /^containerd [1-9]\d* MiB, kubelet [1-9]\d* MiB, kube-proxy [1-9]\d* MiB, coredns [1-9]\d* MiB$/,
    );
    expect(
      (memory![3] ?? '').split(', ').filter((p) => /^stackops-[a-z]+-\S+ [1-9]\d* MiB$/.test(p)),
    ).toHaveLength(4);
    const pids = (out.match(/stopped pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    // etcd, apiserver, KCM, scheduler, kwok, the node's containerd, kubelet, kube-proxy, CoreDNS, the forwarders
    expect(pids.length).toBeGreaterThanOrEqual(11);
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive).map(commandOf), out).toEqual([]);
  });
});

describe('make demo ARGS=--local-operators, stopped with Ctrl-C', () => {
  it('keeps running after the summary with every local operator serving metrics on 127.0.0.1, then SIGINT stops everything it started', async () => {
    const { code, out, scrapes } = await runDemo('ctrl-c', ['--local-operators']);
    if (code !== 130) console.log(out);
    expect(out).toContain('The cluster keeps running');
    expect(scrapes.map((s) => new URL(s.url).hostname)).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
    ]);
    for (const s of scrapes) {
      expect(s.status, s.url).toBe(200);
      // The operator's own series, not only the process defaults.
      expect(s.body, s.url).toMatch(/^rest_client_requests_total\{/m);
    }
    expect(out).toContain('stopping everything the demo started');
    expect(code).toBe(130);
    const pids = (out.match(/running pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(9); // 4 operators + etcd, apiserver, KCM, scheduler, kwok
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive).map(commandOf), out).toEqual([]);
  });
});
