import type { ServiceImages } from '../config/images.js';
import type { HostData } from '../hostdata/host-data.js';
import type { ClusterRef } from '../scheduling/claims.js';

/** What every service renderer reads: the cluster, its hosts per role (sorted by name) and default images. */
export interface RenderContext {
  cluster: ClusterRef;
  hostsByRole: ReadonlyMap<string, readonly HostData[]>;
  images: ServiceImages;
}

/** Every host of every role, in role order then by name. */
export const allHosts = (ctx: RenderContext): HostData[] => [...ctx.hostsByRole.values()].flat();
