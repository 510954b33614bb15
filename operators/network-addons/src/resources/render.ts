import type { KubeObject } from '@stackops/lib-common/client';
import type { FilledSpec } from '../network/network.js';
import { COMPONENTS } from './components/index.js';
import type { RenderContext } from './render-context.js';

export interface RenderedObject {
  /** The component it belongs to (`operator` for the applied-config ConfigMap). */
  component: string;
  object: KubeObject;
}

/** The objects of every enabled component, in render order; a failure names its component. */
export function renderComponents(spec: FilledSpec, ctx: RenderContext): RenderedObject[] {
  return COMPONENTS.filter((c) => c.enabled(spec)).flatMap((c) => {
    try {
      return c.render(spec, ctx).map((object) => ({ component: c.name, object }));
    } catch (err) {
      throw new Error(`component ${c.name}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  });
}
