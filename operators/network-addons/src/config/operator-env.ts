import { type ComponentImages, imagesFromEnv } from './images.js';

export const OPERATOR_NAME = 'network-addons-operator';
/** The SSA field manager every write of this operator carries. */
export const FIELD_MANAGER = `stackops-${OPERATOR_NAME}`;

/** What the operator learns from its environment (the chart sets every variable). */
export interface OperatorEnv {
  /** Holds the applied-config ConfigMap (OPERATOR_NAMESPACE). */
  operatorNamespace: string;
  /** Where the components go (OPERAND_NAMESPACE, default the operator namespace). */
  operandNamespace: string;
  /** Reported in status and stamped on every object (OPERATOR_VERSION). */
  operatorVersion: string;
  images: ComponentImages;
}

export function readOperatorEnv(
  env: Readonly<Record<string, string | undefined>>,
  fallbackVersion: string,
): OperatorEnv {
  const operatorNamespace = env['OPERATOR_NAMESPACE'];
  if (!operatorNamespace)
    throw new Error('OPERATOR_NAMESPACE must be set (the namespace the operator runs in)');
  return {
    operatorNamespace,
    operandNamespace: env['OPERAND_NAMESPACE'] || operatorNamespace,
    operatorVersion: env['OPERATOR_VERSION'] || fallbackVersion,
    images: imagesFromEnv(env),
  };
}

/** Upstream's zap levels (`CNAO_LOG_LEVEL`) as pino's; below -1 is zap's more verbose V-levels. */
const CNAO_LEVELS: Readonly<Record<string, string>> = {
  '-1': 'debug',
  '0': 'info',
  '1': 'warn',
  '2': 'error',
};

/**
 * The log level upstream's `CNAO_LOG_LEVEL` asks for (-1 debug, 0 info, 1 warn, 2 error; lower is
 * trace), so that `kubectl set env deployment/… CNAO_LOG_LEVEL=-1` works as upstream documents it.
 */
export function cnaoLogLevel(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = env['CNAO_LOG_LEVEL']?.trim();
  if (raw === undefined || raw === '') return undefined;
  const mapped = CNAO_LEVELS[raw];
  if (mapped) return mapped;
  if (/^-\d+$/.test(raw)) return 'trace';
  throw new Error(
    `CNAO_LOG_LEVEL must be an integer: -1 (debug), 0 (info), 1 (warn) or 2 (error), or lower than -1 (trace); got ${JSON.stringify(raw)}`,
  );
}
