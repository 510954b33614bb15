import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KeystoneServer } from '@stackops/keystone-operator/testing';
import { type ControlPlane, clusterStatus, ensureBinaries, startControlPlane } from '@stackops/kube-env';
import { createKubeClient } from '@stackops/lib-common/client';
import { applyExamples } from './examples.js';
import { readCatalogue, runBootstrapJob, startRealKeystone, syncFernetKeys } from './keystone.js';
import { type RunningOperator, startOperator } from './operators.js';
import { countOwned } from './owned.js';
import { StepPrinter } from './steps.js';
import { catalogueTable, summaryTable } from './summary.js';
import { demoTargets } from './targets.js';
import { chartAliases, installUmbrella, type OperatorDir, operatorRunSpecs } from './umbrella.js';
import { waitForTargets } from './wait.js';

export interface DemoOptions {
  /** Stop after the summary instead of running until Ctrl-C. */
  exit: boolean;
  clusterName: string;
  /** Stop and replace a running cluster of the same name; without it the demo refuses to start. */
  replace?: boolean;
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
  if (status.phase === 'stopped') return;
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

/** `make demo`: the whole system on one machine, for real. */
export async function runDemo(opts: DemoOptions): Promise<DemoOutcome> {
  await refuseRunningCluster(opts.clusterName, opts.replace ?? false);
  const steps = new StepPrinter(8);
  let keystone: KeystoneServer | undefined;
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
    })();
    return stopping;
  };
  const onSignal = () => {
    say('\nstopping everything the demo started…');
    void stopAll().then(
      () => process.exit(130),
      (err: unknown) => {
        say(`stopping failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  // Persistent, not once: kube-env re-raises a signal nobody else listens to, which would kill us mid-cleanup.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await steps.run('Check the local control plane binaries', async (note) => {
      const built = await ensureBinaries({ progress: (l: string) => note(l) });
      note(`${built.cached ? 'cached' : 'built'}: ${built.layout.bin}`);
    });
    cp = await steps.run(`Start the local control plane "${opts.clusterName}"`, () =>
      startControlPlane({ name: opts.clusterName, fresh: true }),
    );
    const kubeconfig = cp.kubeconfigPath;
    const admin = createKubeClient(cp.kubeConfig, { fieldManager: 'stackops-demo' });
    await steps.run('helm install the umbrella chart (CRDs, RBAC, operator Deployments)', () =>
      installUmbrella(cp!.helm, kubeconfig),
    );
    const logDir = join(cp.handle.layout.root, 'operators');
    mkdirSync(logDir, { recursive: true });
    keystone = await steps.run('Start a real Keystone (OpenStack, from PyPI) on 127.0.0.1', async (note) => {
      const server = await startRealKeystone();
      note(`Keystone ${server.keystoneVersion} at ${server.url}`);
      return server;
    });
    const keystoneUrl = keystone.url;
    await steps.run("Run the four operators locally, each as its chart's ServiceAccount", async (note) => {
      const specs = await operatorRunSpecs(admin);
      for (const dir of Object.keys(chartAliases) as OperatorDir[]) {
        const { serviceAccount, args } = specs[dir];
        // Outside the cluster, keystone-operator calls the real Keystone instead of keystone-internal.openstack.svc.
        const env =
          dir === 'keystone'
            ? { ...specs[dir].env, KEYSTONE_AUTH_URL_OVERRIDE: keystoneUrl }
            : specs[dir].env;
        const op = await startOperator({ dir, serviceAccount, args, env }, kubeconfig, logDir);
        operators.push(op);
        note(
          `${dir}-operator pid ${op.pid} as ${serviceAccount.namespace}/${serviceAccount.name}, metrics ${op.metricsUrl}, log ${op.logFile}`,
        );
      }
    });
    await steps.run('Apply the upstream README examples', async (note) => {
      for (const f of await applyExamples(cp!.kubectl, kubeconfig)) note(`applied ${f}`);
    });
    // Caught here: it may fail while the wait below runs, long before anything awaits it.
    const keysSynced = syncFernetKeys(admin, keystone, keySync.signal).catch((err: unknown) => {
      say(
        `syncing the fernet keys to the real Keystone failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return false;
    });
    const bootstrapped = runBootstrapJob(admin, keystone, keySync.signal).catch((err: unknown) => {
      say(
        `keystone-bootstrap against the real Keystone failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return false;
    });
    const results = await steps.run('Wait until every resource is Ready / Available', () =>
      waitForTargets(admin, demoTargets, opts.timeoutMs),
    );
    const allDone = results.every((r) => r.done);
    await steps.run('Summary', async () => {
      const owned = await countOwned(
        admin,
        results.flatMap((r) => (r.object?.metadata.uid ? [r.object.metadata.uid] : [])),
      );
      say(summaryTable(results, owned));
      keySync.abort();
      const synced = await keysSynced;
      if (await bootstrapped)
        say("keystone-bootstrap's keystone-manage bootstrap ran against the real Keystone.");
      say(`Keystone catalogue (openstack endpoint list) from ${keystone!.url}`);
      if (synced) say('(Keystone signs its tokens with the fernet keys keystone-operator generated.)');
      say(catalogueTable(await readCatalogue(keystone!)));
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
    say(`Operator logs: ${logDir}`);
    say(`Operator metrics: ${operators.map((o) => o.metricsUrl).join(' ')}`);
    say(`running pids: ${pids.join(' ')}`);
    say('Press Ctrl-C to stop everything.');
    await new Promise<never>(() => {});
    return { allDone, pids };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
