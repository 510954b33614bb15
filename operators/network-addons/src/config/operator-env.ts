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
