import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger, type Logger } from '../logging/index.js';
import { loadKubeConfig } from './kubeconfig.js';
import { Manager, managerOptionsFromFlags } from './manager.js';
import { type ManagerFlags, parseManagerOptions } from './options.js';

/** One flag line of `--help`: the flag, its help (one string per line) and its environment variable. */
export interface FlagHelp {
  flag: string;
  help: readonly string[];
  env: string;
}

/** The manager flags every operator accepts (parsed by `parseManagerOptions`), in `--help` order. */
export const MANAGER_FLAGS_HELP: readonly FlagHelp[] = [
  { flag: '--watch-namespace=a,b', help: ['namespaces to watch (default: all)'], env: 'WATCH_NAMESPACE' },
  {
    flag: '--metrics-bind-address=host:port',
    help: ['/metrics (default 127.0.0.1:8080; :port = every interface; 0 = off)'],
    env: 'METRICS_BIND_ADDRESS',
  },
  {
    flag: '--metrics-secure',
    help: [
      '/metrics over HTTPS, callers authorized by the API server',
      '(TokenReview + SubjectAccessReview)',
    ],
    env: 'METRICS_SECURE',
  },
  {
    flag: '--metrics-cert-dir=dir',
    help: ['tls.crt and tls.key for --metrics-secure (default: self-signed)'],
    env: 'METRICS_CERT_DIR',
  },
  {
    flag: '--health-probe-bind-address=host:port',
    help: ['/healthz and /readyz (default 127.0.0.1:8081; :port = every interface)'],
    env: 'HEALTH_PROBE_BIND_ADDRESS',
  },
  { flag: '--leader-elect', help: ['elect a leader through a Lease (replicas > 1)'], env: 'LEADER_ELECT' },
  { flag: '--leader-election-namespace=ns', help: ['namespace of the Lease'], env: 'POD_NAMESPACE' },
  { flag: '--log-level=info', help: ['trace, debug, info, warn, error'], env: 'LOG_LEVEL' },
  { flag: '--kubeconfig=path', help: ['default: in-cluster, else ~/.kube/config'], env: 'KUBECONFIG' },
  { flag: '--graceful-shutdown-timeout=30s', help: [], env: 'GRACEFUL_SHUTDOWN_TIMEOUT' },
];

/** What `register` is given besides the manager. */
export interface OperatorContext<C> {
  flags: ManagerFlags;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** The result of `readConfig`, or undefined without it. */
  config: C;
}

/** What `register` may return to change how the operator starts. */
export interface RegisterResult {
  /** Starts the operator instead of `manager.start()` (e.g. to run setup first). */
  start?: () => Promise<void>;
  /** Fields of the "<name> started" log line; default `{ namespaces }`. */
  startedFields?: Record<string, unknown>;
}

export interface OperatorMainOptions<C = undefined> {
  /** Binary and manager name, e.g. `keystone-operator`. */
  name: string;
  /** The paragraph after the usage line (without trailing newline). */
  summary: string;
  /** Rewrites the common flag list (reorder, drop, reword); default: `MANAGER_FLAGS_HELP` as is. */
  flags?: (common: readonly FlagHelp[]) => readonly FlagHelp[];
  /** Text after the flags section (e.g. the operator's environment variables), ending in a newline. */
  epilog?: string;
  /** Field manager of the manager's client; default the manager's own. */
  fieldManager?: string;
  /**
   * The log level an operator-specific variable asks for (e.g. upstream's `CNAO_LOG_LEVEL`), or
   * undefined. It wins over `--log-level`: users of the upstream operator change the level with
   * `kubectl set env`, while the chart always passes the flag. Throws on a value it cannot map.
   */
  logLevel?: (env: NodeJS.ProcessEnv) => string | undefined;
  /** Reads the operator's own settings right after flag parsing, so bad settings fail before anything connects. */
  readConfig?: (env: NodeJS.ProcessEnv) => C;
  /** Registers the controllers on the manager. */
  register: (
    manager: Manager,
    ctx: OperatorContext<C>,
  ) => RegisterResult | undefined | Promise<RegisterResult | undefined>;
}

/** Where `runOperator` reads and writes; tests pass their own. */
export interface OperatorIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  exit: (code: number) => void;
}

const FLAG_COLUMN = 37;

function renderFlag({ flag, help, env }: FlagHelp): string {
  const lines = help.length > 0 ? [...help] : [''];
  const last = lines.length - 1;
  lines[last] = lines[last] ? `${lines[last]} [${env}]` : `[${env}]`;
  const indent = ' '.repeat(FLAG_COLUMN + 4);
  return lines
    .map((line, i) => (i === 0 ? `  ${flag.padEnd(FLAG_COLUMN)}  ${line}` : `${indent}${line}`))
    .join('\n');
}

/** The `--help` text: usage line, summary, the flags section and the epilog. */
export function operatorUsage<C>(
  opts: Pick<OperatorMainOptions<C>, 'name' | 'summary' | 'flags' | 'epilog'>,
): string {
  const flags = opts.flags ? opts.flags(MANAGER_FLAGS_HELP) : MANAGER_FLAGS_HELP;
  const epilog = opts.epilog ? `\n${opts.epilog}` : '';
  return `Usage: ${opts.name} [flags]

${opts.summary}

Flags (each also read from the environment variable in brackets):
${flags.map(renderFlag).join('\n')}
${epilog}`;
}

/** The process's own arguments, environment, output and exit. */
export function processIo(): OperatorIo {
  return {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    exit: (code) => process.exit(code),
  };
}

async function start<C>(opts: OperatorMainOptions<C>, io: OperatorIo): Promise<void> {
  if (io.argv.includes('--help') || io.argv.includes('-h')) {
    io.stdout(operatorUsage(opts));
    return;
  }
  const flags = parseManagerOptions(io.argv, io.env);
  const config = (opts.readConfig ? opts.readConfig(io.env) : undefined) as C;
  const level = opts.logLevel?.(io.env) ?? flags.logLevel;
  // The client uses nothing of a KubeConfig but what KubeConfigSource has (see kubeconfig.ts).
  const kubeConfig = (await loadKubeConfig(flags.kubeconfig, io.env)) as KubeConfig;
  const logger = createLogger({ name: opts.name, ...(level ? { level } : {}) });
  const manager = new Manager(
    managerOptionsFromFlags(flags, {
      name: opts.name,
      kubeConfig,
      logger,
      ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}),
    }),
  );
  // The handshake, then each informer's watch-list, go on while the controllers register and the
  // servers start.
  manager.client.preconnect();
  manager.startInformers();
  const result = (await opts.register(manager, { flags, logger, env: io.env, config })) ?? {};
  manager.stopOnSignals();
  await (result.start ? result.start() : manager.start());
  logger.info(result.startedFields ?? { namespaces: flags.namespaces ?? 'all' }, `${opts.name} started`);
}

/**
 * The whole `main` of an operator binary: `--help`, manager flags, kubeconfig (the `--kubeconfig` file or the
 * default), logger, Manager, the operator's controllers, signal handling and start. A failure prints
 * `<name>: <message>` and exits 1.
 */
export async function runOperator<C = undefined>(
  opts: OperatorMainOptions<C>,
  io: OperatorIo = processIo(),
): Promise<void> {
  try {
    await start(opts, io);
  } catch (err) {
    io.stderr(`${opts.name}: ${err instanceof Error ? err.message : String(err)}\n`);
    io.exit(1);
  }
}
