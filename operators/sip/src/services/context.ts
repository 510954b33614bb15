import type * as Yaml from '@stackops/lib-common/yaml';
import type { ServiceImages } from '../config/images.js';
import type { HostData } from '../hostdata/host-data.js';
import type { ClusterRef } from '../scheduling/claims.js';

/** A site's HAProxy template: where it came from (for error messages) and its text. */
export interface SiteTemplate {
  /** `ConfigMap <namespace>/<name>, key <key>`. */
  source: string;
  text: string;
}

/** What every service renderer reads: the cluster, its hosts per role (sorted by name) and default images. */
export interface RenderContext {
  cluster: ClusterRef;
  hostsByRole: ReadonlyMap<string, readonly HostData[]>;
  images: ServiceImages;
  /** The site's load balancer templates by role, when its namespace has them. */
  loadBalancerTemplates?: ReadonlyMap<string, SiteTemplate>;
  /**
   * `yaml`'s `stringify`, imported by the step that renders and only when a service writes YAML
   * (Dex's config): not at start-up (ADR 0057), nor in a pass that has no use for it.
   */
  stringifyYaml?: StringifyYaml;
}

export type StringifyYaml = typeof Yaml.stringifyYaml;

/** Every host of every role, in role order then by name. */
export const allHosts = (ctx: RenderContext): HostData[] => [...ctx.hostsByRole.values()].flat();
