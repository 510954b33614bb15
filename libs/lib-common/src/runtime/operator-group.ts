import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger, namedLogger } from '../logging/index.js';
import { loadKubeConfig } from './kubeconfig.js';
import { Manager, managerOptionsFromFlags } from './manager.js';
import { type OperatorIo, type OperatorMainOptions, processIo } from './operator-main.js';
import { parseManagerOptions } from './options.js';
import { nextTurn } from './turns.js';

/** An operator's `runOperator` options with its own config type erased, for a list of several. */
// biome-ignore lint/suspicious/noExplicitAny: each operator's register reads the config its readConfig made
export type AnyOperator = OperatorMainOptions<any>;

interface OperatorGroupOptions {
  /** Name of the process: its logger, Events of nothing, the host manager. */
  name: string;
  operators: readonly AnyOperator[];
}

/** Running operators of one process; `stop()` stops them all, then the host. */
interface OperatorGroup {
  host: Manager;
  members: ReadonlyMap<string, Manager>;
  stop(): Promise<void>;
}

/**
 * Several operators in one process: one host manager owns the API-server connection, the pool of
 * shared informers and the /metrics, /healthz and /readyz servers (ADR 0044); each operator gets a
 * member manager on it with its own field manager, cache (over the pool: a kind two operators
 * cache with the same selectors is watched once), logger (`name` = the operator), Events,
 * controllers and, with --leader-elect, its own Lease `<name>-leader` (the one its separate
 * deployment uses), so each operator leads, fails over and scales on its own.
 */
async function startOperators(opts: OperatorGroupOptions, io: OperatorIo): Promise<OperatorGroup> {
  const flags = parseManagerOptions(io.argv, io.env);
  if (flags.leaderElectionId)
    throw new Error(
      `--leader-election-id: each operator keeps its own Lease (<operator>-leader) when several run in one process`,
    );
  const names = opts.operators.map((o) => o.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) throw new Error(`operators: ${twice.join(', ')} given more than once`);
  // Every operator's settings first, so a bad one fails before anything connects.
  const configs = opts.operators.map((o) => (o.readConfig ? o.readConfig(io.env) : undefined));
  const kubeConfig = (await loadKubeConfig(flags.kubeconfig, io.env)) as KubeConfig;
  const root = createLogger(flags.logLevel ? { level: flags.logLevel } : {});
  const logger = namedLogger(root, opts.name);
  const host = new Manager(
    managerOptionsFromFlags(
      { ...flags, leaderElect: false },
      { name: opts.name, kubeConfig, logger, fieldManager: `stackops-${opts.name}` },
    ),
  );
  host.client.preconnect();
  const members = new Map<string, Manager>();
  const startedFields = new Map<string, Record<string, unknown>>();
  // The operators register side by side: one that waits on the API server while registering (e.g.
  // to learn whether an optional API is served) does not hold back the others' informers. Each
  // registers in a loop turn of its own: registering is CPU with no I/O wait, so in one block the
  // connection's handshake and every watch-list would leave only after the last operator; between
  // turns they go out, and the API server answers on another core while the next one registers.
  const registered = opts.operators.map(async (o, i) => {
    const level = o.logLevel?.(io.env) ?? flags.logLevel;
    const log = namedLogger(root, o.name, level);
    const member = new Manager({
      ...managerOptionsFromFlags(flags, {
        name: o.name,
        kubeConfig,
        logger: log,
        host,
        ...(o.fieldManager ? { fieldManager: o.fieldManager } : {}),
      }),
      // The host serves; members serve nothing of their own.
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    members.set(o.name, member);
    // Each informer lists and watches as soon as the operator declares it (see startInformers).
    member.startInformers();
    await nextTurn();
    const result = (await o.register(member, { flags, logger: log, env: io.env, config: configs[i] })) ?? {};
    if (result.start) throw new Error(`${o.name}: a custom start cannot run beside other operators`);
    startedFields.set(o.name, result.startedFields ?? { namespaces: flags.namespaces ?? 'all' });
  });
  // The host starts in the turn after theirs (turns are taken in order): its servers answer
  // /readyz, not ready until every member started.
  await Promise.all([...registered, nextTurn().then(() => host.start())]);
  for (const [name, member] of members) {
    await member.start();
    member.log.info(startedFields.get(name), `${name} started`);
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    // Members drain their controllers and release their Leases; then the host closes the connection.
    stopping ??= Promise.all([...members.values()].map((m) => m.stop())).then(() => host.stop());
    return stopping;
  };
  return { host, members, stop };
}

/**
 * The whole `main` of a process running several operators: `startOperators`, then a graceful stop
 * of all of them on SIGTERM/SIGINT. A failure prints `<name>: <message>` and exits 1.
 */
export async function runOperators(opts: OperatorGroupOptions, io: OperatorIo = processIo()): Promise<void> {
  try {
    const group = await startOperators(opts, io);
    group.host.stopOnSignals({ stop: group.stop, exit: io.exit });
  } catch (err) {
    io.stderr(`${opts.name}: ${err instanceof Error ? err.message : String(err)}\n`);
    io.exit(1);
  }
}
