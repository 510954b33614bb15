import type { KubeObject } from '@stackops/lib-common/client';
import type { NetworkAddonsConfigSpec } from '../../api/network-addons-config.js';
import type { FilledSpec } from '../../network/network.js';
import type { RenderContext } from '../render-context.js';

/** The spec attributes that switch a component on. */
export type ComponentKey = keyof Pick<
  NetworkAddonsConfigSpec,
  | 'multus'
  | 'multusDynamicNetworks'
  | 'linuxBridge'
  | 'kubeMacPool'
  | 'nmstate'
  | 'ovs'
  | 'macvtap'
  | 'kubeSecondaryDNS'
  | 'kubevirtIpamController'
>;

/** One network add-on: when it is wanted, and the template that renders its objects. */
export interface Component {
  /** Name used in logs and messages (the spec attribute for optional components). */
  name: string;
  enabled(spec: NetworkAddonsConfigSpec): boolean;
  render(spec: FilledSpec, ctx: RenderContext): KubeObject[];
}

/** A component switched on by the presence of its spec attribute. */
export const optional = (key: ComponentKey, render: Component['render']): Component => ({
  name: key,
  enabled: (spec) => spec[key] !== undefined && spec[key] !== null,
  render,
});
