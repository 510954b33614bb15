import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

export interface LoggerFactoryOptions {
  /** Component name, e.g. `keystone-operator`; none for the root of several `namedLogger`s. */
  name?: string;
  /** pino level; defaults to `LOG_LEVEL` or `info`. */
  level?: string;
  /** Force pretty (true) or JSON (false) output; by default pretty only on a terminal outside production. */
  pretty?: boolean;
}

/** Whether pretty lines are asked for (true), refused (false) or left to the terminal (undefined). */
function askedPretty(explicit: boolean | undefined): boolean | undefined {
  if (explicit !== undefined) return explicit;
  if (process.env['LOG_FORMAT'] === 'json') return false;
  if (process.env['LOG_FORMAT'] === 'pretty') return true;
  return undefined;
}

/**
 * The one logger factory of the project: JSON lines in production (one object per line, ready
 * for a log pipeline), pino-pretty on a terminal. Secrets never go through it: callers log keys
 * and names, never values, and `redact` is a second line of defence.
 *
 * pino-pretty runs in a worker thread, which the operators' bundles leave out (tools/images). There
 * a terminal gets JSON lines, and an explicit `LOG_FORMAT=pretty` fails with what to do instead.
 */
export function createLogger(opts: LoggerFactoryOptions): Logger {
  const options: LoggerOptions = {
    ...(opts.name ? { name: opts.name } : {}),
    level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
    redact: { paths: ['*.data', '*.stringData', 'password', '*.password', 'token'], censor: '[redacted]' },
  };
  const asked = askedPretty(opts.pretty);
  const terminal = process.stdout.isTTY === true && process.env['NODE_ENV'] !== 'production';
  if (!(asked ?? terminal)) return pino(options);
  try {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  } catch (err) {
    if (asked === undefined) return pino(options);
    throw new Error(
      `LOG_FORMAT=pretty: this build prints JSON lines only (${err instanceof Error ? err.message : String(err)}); ` +
        'unset LOG_FORMAT and pipe the output through pino-pretty (e.g. kubectl logs … | npx pino-pretty)',
    );
  }
}

/**
 * One of several components' loggers in one process (the combined operators): a child of a root
 * without a name, so every line has one `name`, and the components share one destination and one
 * redaction. A pino of its own per component would cost each start ~0.4 ms more.
 */
export function namedLogger(root: Logger, name: string, level?: string): Logger {
  return root.child({ name }, level ? { level } : {});
}

/** A child logger whose every line carries the object key (`namespace/name`) and kind. */
export function forObject(logger: Logger, kind: string, key: string): Logger {
  return logger.child({ kind, key });
}
