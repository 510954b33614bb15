import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { clusterLayout, clusterStatus, startControlPlane, stopCluster } from '@stackops/kube-env';
import { afterAll, describe, expect, it } from 'vitest';
import { demoTargets } from '../src/targets.js';
import { RELEASE, RELEASE_NAMESPACE } from '../src/umbrella.js';

const execFileP = promisify(execFile);
const main = resolve(import.meta.dirname, '../dist/main.js');
// DEMO_E2E_CLUSTER: another name, so that a second checkout can run this beside a `make test`.
const CLUSTER = process.env.DEMO_E2E_CLUSTER ?? 'stackops-demo-e2e';
/** The --local-operators run's own cluster: it runs while the real-node demo keeps running. */
const LOCAL_CLUSTER = `${CLUSTER}-local`;
/** Every resource must converge within this budget, measured from when the examples were applied. */
const BUDGET_SECONDS = 300;

interface Scrape {
  url: string;
  status: number;
  body: string;
}

/** What the keep-running demo looked like after it had run for KEEP_RUNNING_SECONDS. */
interface LaterLook {
  readyz: string;
  operatorPods: Array<{ name: string; ready: boolean; restarts: number }>;
}

/** How long the keep-running demo must stay up by itself before it is interrupted (issue: at least 90 s). */
const KEEP_RUNNING_SECONDS = 95;

/** The --local-operators demo, started while the real-node demo keeps running (or by its own test). */
let localRun: Promise<DemoRun> | undefined;
type DemoRun = { code: number | null; out: string; scrapes: Scrape[]; later?: LaterLook };

/**
 * Runs the demo, always without standard input (as `make demo </dev/null &`). 'ctrl-c': once it
 * says it keeps running, scrapes the operators' metrics URLs it printed and interrupts it (Ctrl-C).
 * 'keep-running': once it says it keeps running, waits KEEP_RUNNING_SECONDS, looks at the cluster
 * with the kubectl and kubeconfig it printed, then interrupts it.
 */
function runDemo(
  mode: '--exit' | 'ctrl-c' | 'keep-running',
  extra: string[] = [],
  cluster = CLUSTER,
): Promise<DemoRun> {
  return new Promise((done) => {
    const args = [main, '--name', cluster, '--timeout', String(BUDGET_SECONDS), ...extra];
    if (mode === '--exit') args.push('--exit');
    const child = spawn(process.execPath, args, {
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let interrupting = false;
    const scrapes: Scrape[] = [];
    let later: LaterLook | undefined;
    child.stdout.on('data', (d) => {
      out += String(d);
      if (mode === '--exit' || interrupting || !out.includes('Press Ctrl-C')) return;
      interrupting = true;
      if (mode === 'keep-running') {
        // The wait is idle time: the --local-operators demo (its own cluster) runs meanwhile.
        localRun ??= runDemo('ctrl-c', ['--local-operators'], LOCAL_CLUSTER);
        void lookLater(out)
          .then((look) => {
            later = look;
          })
          .finally(() => child.kill('SIGINT'));
        return;
      }
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
    child.on('exit', (code) => done({ code, out, scrapes, ...(later ? { later } : {}) }));
  });
}

/** After KEEP_RUNNING_SECONDS: the API server's /readyz and the operator pods, read with the kubectl the demo printed. */
async function lookLater(out: string): Promise<LaterLook> {
  await new Promise((r) => setTimeout(r, KEEP_RUNNING_SECONDS * 1000));
  const kubeconfig = out.match(/export KUBECONFIG=(\S+)/)?.[1] ?? '';
  const kubectl = out.match(/^ +(\S+) get keystoneapis/m)?.[1] ?? 'kubectl';
  const k = (...a: string[]) => execFileP(kubectl, ['--kubeconfig', kubeconfig, ...a]).then((r) => r.stdout);
  const readyz = await k('get', '--raw', '/readyz').catch((err: Error) => err.message);
  const pods = JSON.parse(
    // The umbrella release's pods, the operators: what network-addons deploys shares the namespace.
    await k(
      '-n',
      RELEASE_NAMESPACE,
      'get',
      'pods',
      '-l',
      `app.kubernetes.io/instance=${RELEASE}`,
      '-o',
      'json',
    ).catch(() => '{}'),
  ) as {
    items?: Array<{
      metadata: { name: string };
      status?: {
        conditions?: Array<{ type: string; status: string }>;
        containerStatuses?: Array<{ restartCount: number }>;
      };
    }>;
  };
  return {
    readyz,
    operatorPods: (pods.items ?? []).map((p) => ({
      name: p.metadata.name,
      ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      restarts: (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
    })),
  };
}

/** Mount points (the fifth field of /proc/self/mountinfo) under `root`, or `root` itself. */
const mountsUnder = (root: string): string[] =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replaceAll('\\040', ' '))
    .filter((m) => m === root || m.startsWith(`${root}/`));

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
  await localRun;
  await stopCluster(CLUSTER, { purge: true });
  await stopCluster(LOCAL_CLUSTER, { purge: true });
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

describe('make demo --replace </dev/null (the operators as pods on the real node), kept running, then Ctrl-C', () => {
  it('replaces the running cluster, runs the four operators as Ready pods from the images built here, converges every example within the budget, prints the summary, keeps running without standard input, and SIGINT stops everything it started', async () => {
    const { code, out, later } = await runDemo('keep-running', ['--replace']);
    if (code !== 130) console.log(out);
    // Still up well after the summary (the issue: it used to end by itself with code 13 within about a minute).
    expect(later, out).toBeDefined();
    expect(later!.readyz).toBe('ok');
    expect(later!.operatorPods.map((p) => p.name.match(/^stackops-([a-z]+)-/)?.[1]).sort()).toEqual([
      'keystone',
      'networkaddons',
      'placement',
      'sip',
    ]);
    for (const p of later!.operatorPods) expect(p, p.name).toMatchObject({ ready: true, restarts: 0 });
    expect(out).toContain('SIGINT: stopping everything the demo started');
    expect(out).not.toContain('unsettled top-level await');
    expect(code).toBe(130);
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
    // The network add-ons for real: multus, the linux-bridge plugins, bridge-marker and ovs-cni (network-addons-operator's
    // DaemonSets) and whereabouts, each a pod Ready on the real node from the image built here.
    for (const [pod, image] of [
      ['multus', 'multus-cni'],
      ['kube-cni-linux-bridge-plugin', 'cni-default-plugins'],
      ['bridge-marker', 'bridge-marker'],
      ['ovs-cni-amd64', 'ovs-cni-plugin'],
      ['whereabouts', 'whereabouts'],
    ] as const)
      expect(out).toMatch(
        new RegExp(`│ ${pod}-[a-z0-9]+ +│ real-node +│ Ready +│ 0 +│ localhost/stackops/${image}:`),
      );
    // The seeds' storage network on the Keystone pod, as their README shows it: `ip a` with the
    // interface named after the NAD and an address of the whereabouts range, which the status lists.
    expect(out).not.toContain('The storage network is not as it should be');
    const listed = out.match(
      /KeystoneAPI openstack\/keystone status\.networkAttachments: \{"openstack\/storage":\["(172\.18\.0\.\d+)"\]\}/,
    )?.[1];
    expect(listed, 'the status.networkAttachments line').toBeDefined();
    expect(Number(listed!.split('.')[3])).toBeGreaterThanOrEqual(50);
    expect(Number(listed!.split('.')[3])).toBeLessThanOrEqual(100);
    const ipA = out.slice(out.indexOf('`ip a` in pod openstack/keystone-'));
    expect(ipA).toMatch(/^ {2}\d+: storage@\S+: <[A-Z,_]*\bUP\b[A-Z,_]*>/m);
    expect(ipA).toMatch(new RegExp(`^ +inet ${listed!.replaceAll('.', '\\.')}/24 .*storage$`, 'm'));
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
    const pids = (out.match(/running pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    // etcd, apiserver, KCM, scheduler, kwok, the node's containerd, kubelet, kube-proxy, CoreDNS, the forwarders
    expect(pids.length).toBeGreaterThanOrEqual(11);
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive).map(commandOf), out).toEqual([]);
    // The node's network namespace and every mount of the cluster (the node's, the pods') are gone too.
    const netns = out.match(/nsenter --net=(\S+)/)?.[1];
    expect(netns, 'the printed network namespace').toMatch(/^\/run\/netns\//);
    expect(existsSync(netns!)).toBe(false);
    expect([...mountsUnder(netns!), ...mountsUnder(clusterLayout(CLUSTER).root)]).toEqual([]);
  });
});

describe('make demo ARGS=--local-operators, stopped with Ctrl-C', () => {
  it('keeps running after the summary with every local operator serving metrics on 127.0.0.1, then SIGINT stops everything it started', async () => {
    localRun ??= runDemo('ctrl-c', ['--local-operators'], LOCAL_CLUSTER);
    const { code, out, scrapes } = await localRun;
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
    expect(out).toContain('SIGINT: stopping everything the demo started');
    expect(code).toBe(130);
    const pids = (out.match(/running pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(9); // 4 operators + etcd, apiserver, KCM, scheduler, kwok
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive).map(commandOf), out).toEqual([]);
  });
});
