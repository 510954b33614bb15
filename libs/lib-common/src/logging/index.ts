/**
 * `@stackops/lib-common/logging` — the operators' pino logger (`createLogger`) and per-object child
 * loggers (`forObject`). Imports nothing of lib-common.
 */

export { createLogger, forObject, type Logger, type LoggerFactoryOptions, namedLogger } from './logger.js';
