export { createLogger, forObject, type Logger, type LoggerFactoryOptions } from './logger.js';
