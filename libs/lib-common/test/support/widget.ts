import type { KindRef } from '../../src/client/kinds.js';
import type { KubeObject } from '../../src/client/types.js';

/** The example kind of the pipeline's unit tests (they run on the fake client; no CRD is installed). */
export const Widget: KindRef = {
  group: 'example.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

export interface Widget extends KubeObject {
  spec: { size: number };
  status?: {
    conditions?: { type: string; status: string; severity?: string; message?: string }[];
    observedGeneration?: number;
    size?: number;
  };
}
