import type { HostData } from '../hostdata/host-data.js';
import type { ClusterRef } from '../scheduling/claims.js';

/** Images of the services when their spec leaves `image` empty. */
export interface ServiceImages {
  loadBalancer: string;
  jumpHost: string;
  auth: string;
}

/** What every service renderer reads: the cluster, its hosts per role (sorted by name) and default images. */
export interface RenderContext {
  cluster: ClusterRef;
  hostsByRole: ReadonlyMap<string, readonly HostData[]>;
  images: ServiceImages;
}

/** Every host of every role, in role order then by name. */
export const allHosts = (ctx: RenderContext): HostData[] => [...ctx.hostsByRole.values()].flat();
