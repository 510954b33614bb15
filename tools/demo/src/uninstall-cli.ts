import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { cacheLayout } from '@stackops/kube-env';
import { createKubeClient } from '@stackops/lib-common/client';
import { Command } from 'commander';
import { bareMetalHostCrd, stackopsCrds } from './crds.js';
import { RELEASE, RELEASE_NAMESPACE } from './umbrella.js';
import { uninstall } from './uninstall.js';

/** helm from --helm, else PATH, else the one kube-env built. */
function findHelm(explicit: string | undefined): string {
  if (explicit) return explicit;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, 'helm');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  const built = join(cacheLayout().bin, 'helm');
  if (existsSync(built)) return built;
  throw new Error('helm not found: put it on PATH, pass --helm, or build it with `make control-plane`');
}

const program = new Command('stackops-uninstall')
  .description(
    `Remove stackops from a cluster: its custom resources (while the operators run), the Helm release, then exactly its CRDs: ${stackopsCrds.join(', ')}`,
  )
  .option('--kubeconfig <path>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config, current context)')
  .option('--release <name>', 'Helm release', RELEASE)
  .option('-n, --namespace <ns>', 'namespace of the release', RELEASE_NAMESPACE)
  .option(
    '--timeout <seconds>',
    "how long each kind's custom resources may take to go before their finalizers are removed",
    '120',
  )
  .option(
    '--delete-baremetalhost-crd',
    `also delete ${bareMetalHostCrd} (and every BareMetalHost), only if this release installed it`,
    false,
  )
  .option('--helm <path>', 'helm binary (default: PATH, else the one kube-env built)')
  .parse();

const opts = program.opts<{
  kubeconfig?: string;
  release: string;
  namespace: string;
  timeout: string;
  deleteBaremetalhostCrd: boolean;
  helm?: string;
}>();
const say = (line: string) => process.stdout.write(`${line}\n`);
try {
  const kc = new KubeConfig();
  if (opts.kubeconfig) kc.loadFromFile(opts.kubeconfig);
  else kc.loadFromDefault();
  say(
    `Uninstalling stackops (release ${opts.namespace}/${opts.release}) from ${kc.getCurrentCluster()?.server}`,
  );
  const report = await uninstall({
    client: createKubeClient(kc, { fieldManager: 'stackops-uninstall' }),
    helm: findHelm(opts.helm),
    ...(opts.kubeconfig ? { kubeconfigPath: opts.kubeconfig } : {}),
    release: opts.release,
    namespace: opts.namespace,
    timeoutMs: Number(opts.timeout) * 1000,
    deleteBareMetalHostCrd: opts.deleteBaremetalhostCrd,
    log: say,
  });
  say(
    `done: ${report.deleted.length} custom resources deleted, ${report.forced.length} forced, ` +
      `release ${report.releaseUninstalled ? 'uninstalled' : 'not found'}, ${report.crdsDeleted.length} CRDs deleted`,
  );
  process.exit(0);
} catch (err) {
  process.stderr.write(`uninstall failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
