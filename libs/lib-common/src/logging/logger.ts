import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

export interface LoggerFactoryOptions {
  /** Component name, e.g. `keystone-operator`. */
  name: string;
  /** pino level; defaults to `LOG_LEVEL` or `info`. */
  level?: string;
  /** Force pretty (true) or JSON (false) output; by default pretty only on a terminal outside production. */
  pretty?: boolean;
}

/** Whether to print human-readable lines: a terminal, and not NODE_ENV=production. */
function wantsPretty(explicit: boolean | undefined): boolean {
  if (explicit !== undefined) return explicit;
  if (process.env['LOG_FORMAT'] === 'json') return false;
  if (process.env['LOG_FORMAT'] === 'pretty') return true;
  return process.stdout.isTTY === true && process.env['NODE_ENV'] !== 'production';
}

/**
 * The one logger factory of the project: JSON lines in production (one object per line, ready
 * for a log pipeline), pino-pretty on a terminal. Secrets never go through it: callers log keys
 * and names, never values, and `redact` is a second line of defence.
 */
export function createLogger(opts: LoggerFactoryOptions): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
    redact: { paths: ['*.data', '*.stringData', 'password', '*.password', 'token'], censor: '[redacted]' },
  };
  if (wantsPretty(opts.pretty)) {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  }
  return pino(options);
}

/** A child logger whose every line carries the object key (`namespace/name`) and kind. */
export function forObject(logger: Logger, kind: string, key: string): Logger {
  return logger.child({ kind, key });
}
