import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorkloadImages, type WorkloadImageName } from '@stackops/images/workloads';
import type { KeystoneServer } from '@stackops/keystone-operator/testing';
import { type ControlPlane, clusterStatus, ensureBinaries, startControlPlane } from '@stackops/kube-env';
import { createKubeClient, Kinds, type KubeClient } from '@stackops/lib-common/client';
import { stringify } from 'yaml';
import { applyExamples, type ExampleEdit } from './examples.js';
import { run } from './exec.js';
import { type LoadedImage, snapshotOperatorImages } from './image-archives.js';
import {
  type CatalogueRow,
  readCatalogue,
  runBootstrapJob,
  startRealKeystone,
  syncFernetKeys,
} from './keystone.js';
import { metricsScraperToken, SCRAPER, scrapeInNode } from './metrics.js';
import { formatNodeMemory, nodeMemory } from './node-memory.js';
import {
  mariadbPod,
  openstackClientPod,
  openstackNamespaceOnRealNode,
  openstackPods,
  readCatalogueFromPod,
} from './openstack-pods.js';
import { type OperatorPod, operatorPods } from './operator-pods.js';
import { type RunningOperator, startOperator } from './operators.js';
import { countOwned } from './owned.js';
import { keepWorkloadsOnKwok, operatorOnRealNodeValues } from './real-node.js';
import { runSipOnRealNode, sipTraffic } from './sip-real-node.js';
import { StepPrinter } from './steps.js';
import {
  buildNetworkAddonImages,
  installStorageNetwork,
  keystoneStorageAttachment,
  networkAddonPodsSelector,
  networkAddonsRelatedImages,
  realNodeNetworkAddonsConfig,
  WHEREABOUTS_NAMESPACE,
  whereaboutsPodsSelector,
  withStorageAttachment,
} from './storage-network.js';
import { catalogueTable, podsTable, summaryTable, workloadPodsTable } from './summary.js';
import { demoTargets, OPENSTACK_NAMESPACE, SIP_NAMESPACE } from './targets.js';
import {
  chartAliases,
  installUmbrella,
  type OperatorDir,
  operatorRunSpecs,
  RELEASE_NAMESPACE,
} from './umbrella.js';
import { waitForTargets } from './wait.js';

export interface DemoOptions {
  /** Stop after the summary instead of running until Ctrl-C. */
  exit: boolean;
  clusterName: string;
  /** Stop and replace a running cluster of the same name; without it the demo refuses to start. */
  replace?: boolean;
  /**
   * Run the operators as local processes (impersonating their charts' ServiceAccounts) on a cluster
   * without a real node, as before the images existed: quicker to iterate on operator code.
   */
  localOperators?: boolean;
  /** Real nodes (default 1; each further one costs ~190 MiB and a few seconds of `up`). */
  realNodes?: number;
  timeoutMs: number;
}

export interface DemoOutcome {
  allDone: boolean;
  pids: number[];
}

const say = (line = '') => process.stdout.write(`${line}\n`);

/**
 * The demo starts its cluster fresh, which stops whatever runs under that name: another demo, or a
 * session someone is using. It only does so when asked.
 */
export async function refuseRunningCluster(name: string, replace: boolean): Promise<void> {
  const status = await clusterStatus(name);
  // Nothing of it runs: stopped, or absent (never started, or purged).
  if (status.phase === 'stopped' || status.phase === 'absent') return;
  const pids = status.components.flatMap((c) => (c.pid ? [c.pid] : []));
  if (replace) {
    say(`Replacing the running cluster "${name}" (pids ${pids.join(' ')}), as asked (--replace).`);
    return;
  }
  throw new Error(
    [
      `a local cluster named "${name}" is already running (pids ${pids.join(' ')}); another demo or session may be using it, so the demo leaves it alone.`,
      'Either stop it:           node tools/kube-env/dist/cli.js down --name ' + name,
      'or use another name:      make demo ARGS="--name <other>"',
      'or replace it (stops it): make demo ARGS=--replace',
    ].join('\n'),
  );
}

/**
 * Values that put every operator of the umbrella chart on the real node (see real-node.ts), and make
 * the stand-in images the defaults of keystone-operator, placement-operator and sip-operator, and the
 * network add-on images built here network-addons-operator's (RELATED_IMAGE_*, *_IMAGE).
 */
function realNodeValuesFile(
  dir: string,
  workloads: Record<WorkloadImageName, string>,
  network: Record<string, string>,
): string {
  const file = join(dir, 'operators-on-real-node.yaml');
  const relatedImages: Partial<Record<string, Record<string, string>>> = {
    [chartAliases['network-addons']]: network,
    [chartAliases.keystone]: { keystoneAPI: workloads.keystone, mariadb: workloads.mariadb },
    [chartAliases.placement]: { placementAPI: workloads.placement, mariadb: workloads.mariadb },
    [chartAliases.sip]: { haproxy: workloads.haproxy, jumpHost: workloads.jumphost },
  };
  writeFileSync(
    file,
    stringify(
      Object.fromEntries(
        Object.values(chartAliases).map((alias) => [
          alias,
          {
            ...operatorOnRealNodeValues,
            ...(relatedImages[alias] ? { relatedImages: relatedImages[alias] } : {}),
          },
        ]),
      ),
    ),
  );
  return file;
}

/** What stops the keep-running demo: Ctrl-C, `kill`, or the terminal going away. */
const stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof stopSignals)[number];
/** Ctrl-C ends as shells report an interrupted command (128 + SIGINT); a requested stop is a success. */
const exitCodeOnSignal: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 0, SIGHUP: 0 };

/**
 * Waits for ever; the signal handler ends the process. With the operators as pods nothing else of
 * ours keeps Node's event loop alive, and a top-level await on a promise with nothing behind it ends
 * the process with code 13 (unsettled top-level await): a referenced timer keeps it alive.
 */
function untilSignalled(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => {}, 2 ** 31 - 1);
  });
}

/** The examples' Namespace, Secrets and MariaDB Service, which the OpenStack examples expect. */
const isPrerequisites = (file: string) => file.startsWith('00-');
const isNetworkAddonsConfig = (file: string) => file === '30-networkaddonsconfig.yaml';

/**
 * On the real nodes: the example NetworkAddonsConfig with what runs there, and the KeystoneAPI on the
 * seeds' storage network (storage-network.ts).
 */
const realNodeExamples: ExampleEdit = (obj, file) =>
  isNetworkAddonsConfig(file)
    ? realNodeNetworkAddonsConfig(obj)
    : obj.kind === 'KeystoneAPI'
      ? withStorageAttachment(obj)
      : obj;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function waitForPodReady(kubectl: string, kubeconfig: string, namespace: string, pod: string) {
  await run(kubectl, [
    '--kubeconfig',
    kubeconfig,
    'wait',
    '--for=condition=Ready',
    `pod/${pod}`,
    '-n',
    namespace,
    '--timeout=180s',
  ]);
}

/** The network add-ons' pods and whereabouts': each Ready on a real node, or what is not. */
async function networkAddonPods(client: KubeClient, realNodes: readonly string[]) {
  const pods = [
    ...(await openstackPods(client, RELEASE_NAMESPACE, networkAddonPodsSelector)),
    ...(await openstackPods(client, WHEREABOUTS_NAMESPACE, whereaboutsPodsSelector)),
  ];
  const problems = pods.flatMap((p) =>
    p.state === 'Ready' && realNodes.includes(p.node) ? [] : [`${p.name} is ${p.state} on ${p.node}`],
  );
  // A DaemonSet each (multus, bridge-marker, the linux-bridge plugins, ovs-cni, whereabouts) on every real node.
  if (pods.length < 5 * realNodes.length) problems.push(`${pods.length} network add-on pods`);
  return { pods, problems };
}

/** The operator pods, each Ready on a real node and running the image built here, or an error naming what is not. */
async function checkOperatorPods(
  client: KubeClient,
  images: Map<string, string>,
  realNodes: readonly string[],
): Promise<OperatorPod[]> {
  const pods = await operatorPods(client);
  const problems = pods.flatMap((p) => [
    ...(p.ready ? [] : [`${p.name} is not Ready`]),
    ...(realNodes.includes(p.node) ? [] : [`${p.name} runs on ${p.node}`]),
    ...(images.get(p.image) === p.imageID
      ? []
      : [`${p.name} runs ${p.imageID}, not the ${p.image} built here`]),
  ]);
  if (pods.length !== Object.keys(chartAliases).length) problems.push(`${pods.length} operator pods`);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return pods;
}

/**
 * `make demo`: the whole system on one machine, for real. The operators run as pods of the umbrella
 * chart on a real node, from the images built here; with `localOperators`, as local processes.
 */
export async function runDemo(opts: DemoOptions): Promise<DemoOutcome> {
  await refuseRunningCluster(opts.clusterName, opts.replace ?? false);
  const real = !opts.localOperators;
  const realNodes = opts.realNodes ?? 1;
  if (!Number.isInteger(realNodes) || realNodes < 1 || realNodes > 16)
    throw new Error(`--real-nodes: ${opts.realNodes} is not a whole number from 1 to 16`);
  if (realNodes > 1 && !real) throw new Error('--real-nodes: --local-operators runs without real nodes');
  const steps = new StepPrinter(real ? 10 : 8);
  let keystone: KeystoneServer | undefined;
  let imageDir: string | undefined;
  const keySync = new AbortController();
  const operators: RunningOperator[] = [];
  let cp: ControlPlane | undefined;
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      keySync.abort();
      await Promise.allSettled(operators.map((o) => o.stop()));
      await keystone?.stop();
      await cp?.stop({ purge: true });
      if (imageDir) rmSync(imageDir, { recursive: true, force: true });
    })();
    return stopping;
  };
  const onSignal = (signal: StopSignal) => {
    // A closed terminal (SIGHUP) makes writes to it fail: that must not end the clean-up.
    process.stdout.on('error', () => {});
    say(`\n${signal}: stopping everything the demo started…`);
    void stopAll().then(
      () => process.exit(exitCodeOnSignal[signal]),
      (err: unknown) => {
        say(`stopping failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  // Persistent, not once: kube-env re-raises a signal nobody else listens to, which would kill us mid-cleanup.
  for (const signal of stopSignals) process.on(signal, onSignal);

  try {
    let images: { archives: string[]; byName: Map<string, string> } | undefined;
    let workloads: Record<WorkloadImageName, string> | undefined;
    let network: Awaited<ReturnType<typeof buildNetworkAddonImages>>['names'] | undefined;
    const workloadArchives: string[] = [];
    if (real) {
      imageDir = mkdtempSync(join(tmpdir(), 'stackops-demo-images-'));
      const loaded: LoadedImage[] = await snapshotOperatorImages(imageDir);
      images = {
        archives: loaded.map((i) => i.archive),
        byName: new Map(loaded.map((i) => [i.name, i.configDigest])),
      };
    }
    if (real) {
      workloads = await steps.run(
        'Build the stand-in images (Keystone, Placement, MariaDB, openstackclient; HAProxy, jump host, Redfish BMC; Multus, CNI plugins, bridge-marker, ovs-cni, whereabouts)',
        async (note) => {
          const built = await buildWorkloadImages();
          const all = Object.values(built.images);
          for (const i of all) {
            workloadArchives.push(i.built.archive);
            note(
              `${i.name} (${Object.entries(i.versions)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ')})`,
            );
          }
          const addons = await buildNetworkAddonImages();
          workloadArchives.push(...addons.archives);
          network = addons.names;
          note(`network add-ons: ${Object.values(addons.names).join(', ')}`);
          return Object.fromEntries(all.map((i) => [i.image, i.name])) as Record<WorkloadImageName, string>;
        },
      );
    }
    await steps.run('Check the local control plane binaries', async (note) => {
      const built = await ensureBinaries({ progress: (l: string) => note(l) });
      note(`${built.cached ? 'cached' : 'built'}: ${built.layout.bin}`);
    });
    cp = await steps.run(
      real
        ? `Start the local control plane "${opts.clusterName}" with ${realNodes === 1 ? 'a real node' : `${realNodes} real nodes`}, and load the operator and stand-in images`
        : `Start the local control plane "${opts.clusterName}"`,
      async (note) => {
        const started = await startControlPlane({
          name: opts.clusterName,
          fresh: true,
          // Open vSwitch on every real node, as network-addons' ovs component expects of a host.
          ...(images ? { realNodes, images: images.archives, ovs: true } : {}),
        });
        if (started.realNode) {
          note(
            `real ${started.realNodes.length === 1 ? 'node' : 'nodes'} ${started.realNodes.map((n) => `${n.name} ${n.ip}`).join(', ')}; images: ${[...images!.byName.keys()].join(', ')}`,
          );
          const client = createKubeClient(started.kubeConfig, { fieldManager: 'stackops-demo' });
          // After the start, whose deadline is for the daemons: these images are large.
          await started.realNode.loadImages(workloadArchives);
          await keepWorkloadsOnKwok(client);
          await openstackNamespaceOnRealNode(client);
          note(
            `the operators and namespace ${OPENSTACK_NAMESPACE} run on the real node; kwok's nodes simulate the other products' workloads`,
          );
        }
        return started;
      },
    );
    const kubeconfig = cp.kubeconfigPath;
    const admin = createKubeClient(cp.kubeConfig, { fieldManager: 'stackops-demo' });
    await steps.run(
      real
        ? 'helm install the umbrella chart: CRDs, RBAC, the operators as pods on the real node'
        : 'helm install the umbrella chart (CRDs, RBAC, operator Deployments)',
      () =>
        installUmbrella(
          cp!.helm,
          kubeconfig,
          real
            ? realNodeValuesFile(cp!.handle.layout.root, workloads!, networkAddonsRelatedImages(network!))
            : undefined,
        ),
    );
    if (real) {
      await steps.run('Check the operator pods, and start MariaDB behind Service openstack', async (note) => {
        const pods = await checkOperatorPods(
          admin,
          images!.byName,
          cp!.realNodes.map((n) => n.name),
        );
        note(`${pods.length} operator pods Ready on the real node, from the images built here`);
        // MariaDB takes its root password from the prerequisites' osp-secret, and is Ready before
        // the KeystoneAPI and PlacementAPI exist: their db-create Jobs would fail and retry until it is.
        const prereqs = await applyExamples(cp!.kubectl, kubeconfig, { only: isPrerequisites });
        note(`applied ${prereqs.join(', ')}`);
        await admin.create(Kinds.Pod, mariadbPod(workloads!.mariadb));
        await waitForPodReady(cp!.kubectl, kubeconfig, OPENSTACK_NAMESPACE, 'mariadb');
        note(`MariaDB ${workloads!.mariadb} Ready in ${OPENSTACK_NAMESPACE} (a pod on the real node)`);
      });
      // Before the KeystoneAPI: its pod gets the storage interface only if Multus, whereabouts and
      // the NAD are there when the pod is created.
      await steps.run(
        'Network add-ons on the real nodes: NetworkAddonsConfig (multus, linuxBridge, ovs), whereabouts, NAD storage',
        async (note) => {
          await applyExamples(cp!.kubectl, kubeconfig, {
            only: isNetworkAddonsConfig,
            edit: realNodeExamples,
          });
          const started = Date.now();
          await run(cp!.kubectl, [
            '--kubeconfig',
            kubeconfig,
            'wait',
            '--for=condition=Available',
            'networkaddonsconfig/cluster',
            '--timeout=300s',
          ]);
          note(
            `NetworkAddonsConfig cluster Available after ${((Date.now() - started) / 1000).toFixed(1)}s (its DaemonSets rolled out on the real nodes)`,
          );
          await installStorageNetwork(cp!.kubectl, kubeconfig, network!.whereabouts);
          note(
            `whereabouts on every real node; NetworkAttachmentDefinition ${OPENSTACK_NAMESPACE}/storage (the seeds')`,
          );
        },
      );
    } else {
      keystone = await steps.run(
        'Start a real Keystone (OpenStack, from PyPI) on 127.0.0.1',
        async (note) => {
          const server = await startRealKeystone();
          note(`Keystone ${server.keystoneVersion} at ${server.url}`);
          return server;
        },
      );
      const keystoneServer = keystone;
      const logDir = join(cp.handle.layout.root, 'operators');
      mkdirSync(logDir, { recursive: true });
      await steps.run("Run the four operators locally, each as its chart's ServiceAccount", async (note) => {
        const specs = await operatorRunSpecs(admin);
        for (const dir of Object.keys(chartAliases) as OperatorDir[]) {
          const { serviceAccount, args } = specs[dir];
          // Outside the cluster, keystone-operator calls the real Keystone instead of keystone-internal.openstack.svc.
          const env =
            dir === 'keystone'
              ? { ...specs[dir].env, KEYSTONE_AUTH_URL_OVERRIDE: keystoneServer.url }
              : specs[dir].env;
          const op = await startOperator({ dir, serviceAccount, args, env }, kubeconfig, logDir);
          operators.push(op);
          note(
            `${dir}-operator pid ${op.pid} as ${serviceAccount.namespace}/${serviceAccount.name}, metrics ${op.metricsUrl}, log ${op.logFile}`,
          );
        }
      });
    }
    await steps.run('Apply the upstream README examples', async (note) => {
      // On the real node the operators' defaults (the stand-in images) replace the examples' quay.io images.
      const rest = {
        dropContainerImage: real,
        only: (f: string) => !(real && isPrerequisites(f)),
        ...(real ? { edit: realNodeExamples } : {}),
      };
      for (const f of await applyExamples(cp!.kubectl, kubeconfig, rest)) note(`applied ${f}`);
      if (real) {
        note("containerImage left out: the operators' RELATED_IMAGE_* defaults (stand-in images) apply");
        note('KeystoneAPI with networkAttachments: [storage]; NetworkAddonsConfig as the real nodes run it');
      }
    });
    // Caught here: they may fail while the wait below runs, long before anything awaits them.
    const local = keystone
      ? {
          server: keystone,
          keysSynced: syncFernetKeys(admin, keystone, keySync.signal).catch((err: unknown) => {
            say(`syncing the fernet keys to the real Keystone failed: ${errorText(err)}`);
            return false;
          }),
          bootstrapped: runBootstrapJob(admin, keystone, keySync.signal).catch((err: unknown) => {
            say(`keystone-bootstrap against the real Keystone failed: ${errorText(err)}`);
            return false;
          }),
        }
      : undefined;
    const results = await steps.run('Wait until every resource is Ready / Available', () =>
      waitForTargets(admin, demoTargets, opts.timeoutMs),
    );
    let allDone = results.every((r) => r.done);
    const sip = real
      ? await steps.run(
          "Run SIP's load balancers and jump host on the real node, in front of fake workers",
          (note) =>
            runSipOnRealNode(admin, cp!, workloads!.jumphost, note).catch((err: unknown) => {
              say(`SIP on the real node failed: ${errorText(err)}`);
              allDone = false;
              return undefined;
            }),
        )
      : undefined;
    let pods: OperatorPod[] = [];
    await steps.run('Summary', async () => {
      const owned = await countOwned(
        admin,
        results.flatMap((r) => (r.object?.metadata.uid ? [r.object.metadata.uid] : [])),
      );
      say(summaryTable(results, owned));
      if (real) {
        pods = await operatorPods(admin);
        say('Operator pods (umbrella release, real node)');
        say(podsTable(pods, images!.byName));
        // Still Ready, never restarted: the probes and the work did not kill them.
        say(formatNodeMemory(await nodeMemory(cp!)));
        // Secure metrics, scraped as Prometheus would: HTTPS, a token the API server authorises.
        const token = await metricsScraperToken(admin, cp!.kubectl, kubeconfig);
        const scraped = await Promise.all(
          pods.map(async (p) => {
            const r = await scrapeInNode(cp!.realNode!.netnsPath, p.podIP, token).catch(() => undefined);
            return `${p.name} ${r ? `HTTP ${r.status}, ${r.series} samples` : 'unreachable'}`;
          }),
        );
        say(
          `Operator metrics (https://<pod IP>:8080/metrics as ${RELEASE_NAMESPACE}/${SCRAPER}): ${scraped.join('; ')}`,
        );
        const unwell = pods.filter((p) => !p.ready || p.restarts > 0);
        if (unwell.length > 0) {
          say(`Not every operator pod is Ready and unrestarted: ${unwell.map((p) => p.name).join(', ')}`);
          allDone = false;
        }
      }
      keySync.abort();
      let catalogue: CatalogueRow[];
      if (local) {
        const synced = await local.keysSynced;
        if (await local.bootstrapped)
          say("keystone-bootstrap's keystone-manage bootstrap ran against the real Keystone.");
        say(`Keystone catalogue (openstack endpoint list) from ${local.server.url}`);
        if (synced) say('(Keystone signs its tokens with the fernet keys keystone-operator generated.)');
        catalogue = await readCatalogue(local.server);
      } else {
        say(`OpenStack pods (namespace ${OPENSTACK_NAMESPACE}, real node, stand-in images)`);
        say(workloadPodsTable(await openstackPods(admin)));
        const addons = await networkAddonPods(
          admin,
          cp!.realNodes.map((n) => n.name),
        );
        say(
          `Network add-on pods (${RELEASE_NAMESPACE}: network-addons-operator's; ${WHEREABOUTS_NAMESPACE}: whereabouts)`,
        );
        say(workloadPodsTable(addons.pods));
        const attachment = await keystoneStorageAttachment(admin, cp!.kubectl, kubeconfig);
        for (const line of attachment.lines) say(line);
        if (addons.problems.length > 0 || !attachment.ok) {
          say(
            `The storage network is not as it should be: ${[...addons.problems, ...(attachment.ok ? [] : ['no single address of 172.18.0.50-100 on the Keystone pod listed in status'])].join('; ')}`,
          );
          allDone = false;
        }
        await admin.create(Kinds.Pod, openstackClientPod(workloads!.openstackclient));
        await waitForPodReady(cp!.kubectl, kubeconfig, OPENSTACK_NAMESPACE, 'openstackclient');
        say(
          'Keystone catalogue: `openstack endpoint list` in pod openstack/openstackclient, from the Keystone pods keystone-operator deployed',
        );
        catalogue = await readCatalogueFromPod(cp!.kubectl, kubeconfig);
      }
      say(catalogueTable(catalogue));
      if (sip) {
        say(`SIP service pods (namespace ${SIP_NAMESPACE}, real node, stand-in images)`);
        say(workloadPodsTable(await openstackPods(admin, SIP_NAMESPACE)));
        for (const line of await sipTraffic(cp!, sip).catch((err: unknown) => [`failed: ${errorText(err)}`]))
          say(line);
      }
    });
    const pids = [
      ...operators.map((o) => o.pid),
      ...Object.values(cp.handle.state.components).map((c) => c.pid),
    ];
    if (!allDone) say('Not every resource converged: see the operator logs above.');
    if (opts.exit) {
      await stopAll();
      say(`stopped pids: ${pids.join(' ')}`);
      return { allDone, pids };
    }
    say('');
    say('The cluster keeps running. Try:');
    say(`  export KUBECONFIG=${kubeconfig}`);
    say(`  ${cp.kubectl} get keystoneapis,placementapis,sipclusters -A`);
    say(`  ${cp.kubectl} get networkaddonsconfig cluster -o yaml`);
    if (real) {
      say(`  ${cp.kubectl} -n ${RELEASE_NAMESPACE} get pods -o wide`);
      say(`  ${cp.kubectl} -n ${RELEASE_NAMESPACE} logs deploy/stackops-keystone`);
      say(
        `Operator metrics (HTTPS, token of a ServiceAccount bound to <release>-<chart>-metrics-reader), from inside the node's network:`,
      );
      say(
        `  nsenter --net=${cp.realNode?.netnsPath} curl -sk -H "Authorization: Bearer $(${cp.kubectl} -n ${RELEASE_NAMESPACE} create token ${SCRAPER})" https://<pod IP>:8080/metrics`,
      );
      say(`Operator metrics: ${pods.map((p) => `https://${p.podIP}:8080/metrics`).join(' ')}`);
    } else {
      say(`Operator logs: ${join(cp.handle.layout.root, 'operators')}`);
      say(`Operator metrics: ${operators.map((o) => o.metricsUrl).join(' ')}`);
    }
    say(`running pids: ${pids.join(' ')}`);
    say('Press Ctrl-C to stop everything.');
    await untilSignalled();
    return { allDone, pids };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
