#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { Command, InvalidArgumentError } from 'commander';
import { binaryNames, ensureBinary, isBinaryName } from './binaries.js';
import { ensureBinaries } from './build/build.js';
import {
  clusterStatus,
  defaultClusterName,
  defaultNodeCount,
  listClusters,
  startCluster,
  stopCluster,
} from './cluster/control-plane.js';
import { clusterLayout, componentNames, isComponentName, shellExports } from './cluster/layout.js';
import { cacheLayout } from './paths.js';
import { formatDuration } from './util/format.js';
import { cacheKey, versions } from './versions.js';

const err = (line: string) => process.stderr.write(`${line}\n`);
// A closed pipe (`kube-env up | head`) must not abort a start half-way: output is best effort.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});
const defaultName = () => process.env.KUBE_ENV_NAME || defaultClusterName;

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected an integer >= 0');
  return n;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

const program = new Command('kube-env')
  .description(
    'A real local Kubernetes control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok) on 127.0.0.1',
  )
  .showHelpAfterError();

program
  .command('build')
  .description(`build the pinned binaries into the cache (${cacheKey()}), unless already there`)
  .option('--force', 'rebuild even when the cache is complete')
  .action(async (opts: { force?: boolean }) => {
    const result = await ensureBinaries({ force: opts.force ?? false });
    if (result.cached) err(`kube-env build: binaries are cached in ${result.layout.bin}`);
  });

program
  .command('which')
  .description(
    `print the absolute path of a pinned binary (${binaryNames.join(', ')}), building the cache first if needed`,
  )
  .argument('<binary>')
  .action(async (binary: string) => {
    if (!isBinaryName(binary)) {
      throw new InvalidArgumentError(`unknown binary "${binary}"; one of: ${binaryNames.join(', ')}`);
    }
    process.stdout.write(`${await ensureBinary(binary)}\n`);
  });

program
  .command('up')
  .description(
    'start a cluster in the background (or reuse it if it already runs) and wait until it is ready',
  )
  .option('--name <name>', 'cluster name', defaultName())
  .option(
    '--nodes <count>',
    'number of fake (kwok) nodes (0 allowed with --real-node)',
    nonNegativeInt,
    defaultNodeCount,
  )
  .option(
    '--real-node',
    'add a real node (kubelet, containerd, kube-proxy, CoreDNS) in a namespace with no route out (= --real-nodes 1)',
  )
  .option(
    '--real-nodes <count>',
    'add this many real nodes, each its own host (network and mount namespace, containerd, kubelet, kube-proxy, pod subnet)',
    nonNegativeInt,
  )
  .option(
    '--image <path>',
    'load this image archive or OCI layout into every real node (repeatable)',
    collect,
    [],
  )
  .option(
    '--audit-log <path>',
    'the API server writes an audit log of every request there (metadata level, JSON lines); a running cluster without it is restarted',
  )
  .option(
    '--admission-webhooks',
    'the API server calls admission webhooks (off by default: webhooks of pods on fake nodes would fail admissions); a running cluster started otherwise is restarted',
  )
  .option(
    '--ovs',
    'run Open vSwitch (userspace datapath) on every real node, with a bridge br1 joining them; a running cluster without it is restarted',
  )
  .option('--fresh', 'start from empty etcd data (and stop the cluster first if it runs)')
  .option('--timeout <seconds>', 'give up after this many seconds', positiveInt, 120)
  .action(
    async (opts: {
      name: string;
      nodes: number;
      realNode?: boolean;
      realNodes?: number;
      image: string[];
      auditLog?: string;
      admissionWebhooks?: boolean;
      ovs?: boolean;
      fresh?: boolean;
      timeout: number;
    }) => {
      const handle = await startCluster({
        name: opts.name,
        nodes: opts.nodes,
        realNode: opts.realNode ?? false,
        ...(opts.realNodes !== undefined ? { realNodes: opts.realNodes } : {}),
        images: opts.image,
        ...(opts.auditLog ? { auditLog: opts.auditLog } : {}),
        admissionWebhooks: opts.admissionWebhooks ?? false,
        ovs: opts.ovs ?? false,
        fresh: opts.fresh ?? false,
        reuse: true,
        detach: true,
        timeoutMs: opts.timeout * 1000,
        progress: err,
      });
      const verb = handle.reused
        ? 'is already running'
        : `is ready after ${formatDuration(handle.startupMs)}`;
      const node = handle.realNode;
      const real = handle.realNodes.map((n) => `${n.name} (${n.ip})`).join(', ');
      process.stdout.write(
        [
          `cluster ${handle.name} ${verb}: ${handle.server}, ${handle.state.nodes} fake nodes${node ? `, real nodes ${real}` : ''}`,
          ...(handle.state.auditLog ? [`  audit log: ${handle.state.auditLog}`] : []),
          ...(node
            ? [
                `  enter a real node (mount and network namespaces): kube-env node-exec --name ${handle.name} [--node <name>] -- <command>`,
                `  load images: kube-env load-images --name ${handle.name} <archive|oci-layout>...`,
              ]
            : []),
          '',
          `  export KUBECONFIG=${handle.kubeconfigPath}`,
          `  export PATH=${handle.binDir}:$PATH    # kubectl, helm`,
          '',
          `  kube-env status --name ${handle.name}`,
          `  kube-env logs kube-apiserver --name ${handle.name}`,
          `  kube-env down --name ${handle.name}`,
          '',
        ].join('\n'),
      );
    },
  );

program
  .command('load-images')
  .description("import image archives (docker or OCI tar) or OCI layout folders into a cluster's real node")
  .argument('<paths...>')
  .option('--name <name>', 'cluster name', defaultName())
  .action(async (paths: string[], opts: { name: string }) => {
    const { loadImages } = await import('./node/access.js');
    for (const image of await loadImages(opts.name, paths)) process.stdout.write(`${image}\n`);
  });

program
  .command('node-exec')
  .description(
    "run a command inside a cluster's real node: its mount namespace (its /etc/cni/net.d, /var/lib/kubelet, …) and network namespace (pod IPs and Service VIPs are reachable there)",
  )
  .argument('<command...>')
  .option('--name <name>', 'cluster name', defaultName())
  .option('--node <node>', 'which real node (default: the first, real-node)')
  .action(async (command: string[], opts: { name: string; node?: string }) => {
    const { readState } = await import('./cluster/state.js');
    const { nodeEnterCommand } = await import('./node/access.js');
    const state = readState(clusterLayout(opts.name));
    const nodes = state?.realNodes ?? (state?.realNode ? [state.realNode] : []);
    const node = opts.node === undefined ? nodes[0] : nodes.find((n) => n.name === opts.node);
    if (!node) throw new Error(`cluster ${opts.name} has no real node${opts.node ? ` ${opts.node}` : ''}`);
    const [file = 'nsenter', ...args] = nodeEnterCommand(node, command);
    spawn(file, args, { stdio: 'inherit' }).on('exit', (code) => {
      process.exitCode = code ?? 1;
    });
  });

program
  .command('down')
  .description('stop a cluster (its etcd data is kept for the next `up` unless --purge)')
  .option('--name <name>', 'cluster name', defaultName())
  .option('--all', 'stop every cluster')
  .option('--purge', 'also delete the state directory (etcd data, PKI, logs)')
  .action(async (opts: { name: string; all?: boolean; purge?: boolean }) => {
    const names = opts.all ? listClusters() : [opts.name];
    for (const name of names) {
      const started = Date.now();
      await stopCluster(name, { purge: opts.purge ?? false });
      err(
        `cluster ${name} stopped in ${formatDuration(Date.now() - started)}${opts.purge ? ' and deleted' : ''}`,
      );
    }
  });

program
  .command('status')
  .description('show the clusters and their components (exit code 1 when the named cluster is not running)')
  .option('--name <name>', 'only this cluster')
  .action(async (opts: { name?: string }) => {
    const names = opts.name ? [opts.name] : listClusters();
    if (names.length === 0) process.stdout.write(`no clusters (binaries: ${cacheLayout().bin})\n`);
    let allRunning = true;
    for (const name of names) {
      const status = await clusterStatus(name);
      allRunning &&= status.phase === 'running';
      process.stdout.write(`${status.name}: ${status.phase}${status.server ? ` ${status.server}` : ''}\n`);
      if (status.phase === 'absent') continue;
      for (const node of status.realNodes) {
        process.stdout.write(`  real node ${node.name} ${node.ip}, namespace ${node.netnsPath}\n`);
      }
      for (const c of status.components) {
        process.stdout.write(`  ${c.name.padEnd(24)} ${c.running ? `running (pid ${c.pid})` : 'stopped'}\n`);
      }
      process.stdout.write(`  kubeconfig: ${status.kubeconfigPath}\n`);
    }
    if (opts.name && !allRunning) process.exitCode = 1;
  });

program
  .command('env')
  .description('print shell exports for a cluster: eval "$(kube-env env)"')
  .option('--name <name>', 'cluster name', defaultName())
  .action((opts: { name: string }) => {
    process.stdout.write(shellExports(opts.name, cacheLayout().bin));
  });

program
  .command('logs')
  .description(
    `print a component's log (${componentNames.join(', ')}; real node k > 1: containerd-k, kubelet-k, kube-proxy-k)`,
  )
  .argument('<component>')
  .option('--name <name>', 'cluster name', defaultName())
  .option('-n, --lines <count>', 'last lines only', positiveInt)
  .option('-f, --follow', 'keep printing as the log grows')
  .action((component: string, opts: { name: string; lines?: number; follow?: boolean }) => {
    if (!isComponentName(component)) {
      throw new InvalidArgumentError(
        `unknown component "${component}"; one of: ${componentNames.join(', ')}`,
      );
    }
    const file = clusterLayout(opts.name).logFile(component);
    const args = [...(opts.follow ? ['-F'] : []), '-n', opts.lines ? String(opts.lines) : '+1', file];
    spawn('tail', args, { stdio: 'inherit' }).on('exit', (code) => {
      process.exitCode = code ?? 1;
    });
  });

program
  .command('versions')
  .description('print the pinned versions and the cache directory')
  .action(() => {
    process.stdout.write(
      `${JSON.stringify({ ...versions, cacheKey: cacheKey(), cache: cacheLayout().root }, null, 2)}\n`,
    );
  });

program
  .command('bench')
  .description('measure up time with a warm cache, memory per component, cold build time and cache size')
  .option('--nodes <count>', 'number of fake nodes', nonNegativeInt, defaultNodeCount)
  .option('--real-node', 'with a real node (root): its start time and memory too')
  .option('--real-nodes <count>', 'with this many real nodes (root)', nonNegativeInt)
  .option('--name-prefix <prefix>', 'name the clusters <prefix>-<pid>-<run>', 'bench')
  .action(async (opts: { nodes: number; realNode?: boolean; realNodes?: number; namePrefix: string }) => {
    const { runBench } = await import('./bench.js');
    await runBench({
      nodes: opts.nodes,
      realNodes: opts.realNodes ?? (opts.realNode ? 1 : 0),
      namePrefix: opts.namePrefix,
    });
  });

try {
  await program.parseAsync();
} catch (error) {
  err(`kube-env: ${(error as Error).message}`);
  process.exitCode = 1;
}
