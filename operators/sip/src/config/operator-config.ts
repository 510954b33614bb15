import { imagesFromEnv, type ServiceImages } from './images.js';

/** The process name in logs, Events and `--help`. */
export const OPERATOR_NAME = 'sip-operator';

/** What the operator reads from its environment; everything else comes from flags or the SIPClusters. */
export interface OperatorConfig {
  images: ServiceImages;
}

export function readOperatorConfig(env: Readonly<Record<string, string | undefined>>): OperatorConfig {
  return { images: imagesFromEnv(env) };
}
