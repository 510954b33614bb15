import { isPlainObject } from '../client/json.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { ConditionCatalog, ConditionType, Reason, Severity } from '../conditions/catalog.js';
import type { Conditions } from '../conditions/conditions.js';
import type { NetworkAttachmentDefinition as GeneratedNetworkAttachmentDefinition } from '../external/index.js';

/** The pod annotation multus reads: which extra networks to attach. */
export const NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';
/** The pod annotation multus writes: the interfaces and IPs a pod got. */
export const NETWORK_STATUS_ANNOTATION = 'k8s.v1.cni.cncf.io/network-status';

/**
 * A NetworkAttachmentDefinition (k8s.cni.cncf.io/v1), typed from its CRD YAML in tools/crd-types
 * (ADR 0013); `spec.config` is the CNI config as JSON text.
 */
export type NetworkAttachmentDefinition = GeneratedNetworkAttachmentDefinition & KubeObject;

/** One entry of the networks annotation (multus NetworkSelectionElement, the fields upstream sets). */
export interface NetworkSelection {
  name: string;
  namespace: string;
  interface: string;
  'default-route'?: string[];
}

/** The IPAM gateway of a NAD's CNI config, if it declares one. Throws on a config that is not JSON. */
export function nadGateway(nad: NetworkAttachmentDefinition): string | undefined {
  const config = nad.spec?.config;
  if (!config) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch (err) {
    throw new Error(
      `NetworkAttachmentDefinition ${nad.metadata.namespace}/${nad.metadata.name}: spec.config is not JSON`,
      {
        cause: err,
      },
    );
  }
  const ipam = isPlainObject(parsed) ? parsed['ipam'] : undefined;
  const gateway = isPlainObject(ipam) ? ipam['gateway'] : undefined;
  return typeof gateway === 'string' && gateway !== '' ? gateway : undefined;
}

/**
 * The pod-template annotation attaching `nads` (upstream `EnsureNetworksAnnotation`): a JSON list
 * of `{name, namespace, interface, default-route?}` where the interface name is the NAD name cut to
 * 15 characters (the Linux limit) and `default-route` is the NAD's IPAM gateway. No NADs still
 * yields the annotation, with `[]`.
 */
export function networksAnnotation(nads: readonly NetworkAttachmentDefinition[]): Record<string, string> {
  const list: NetworkSelection[] = nads.map((nad) => {
    const name = nad.metadata.name ?? '';
    const gateway = nadGateway(nad);
    return {
      name,
      namespace: nad.metadata.namespace ?? '',
      interface: name.slice(0, 15),
      ...(gateway ? { 'default-route': [gateway] } : {}),
    };
  });
  return { [NETWORKS_ANNOTATION]: JSON.stringify(list) };
}

/** Reads the NADs named in a spec; the names not found are returned, in order, for the condition message. */
export async function getNetworkAttachments(
  client: KubeClient,
  namespace: string,
  names: readonly string[],
): Promise<{ nads: NetworkAttachmentDefinition[]; missing: string[] }> {
  const nads: NetworkAttachmentDefinition[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const nad = await client.get<NetworkAttachmentDefinition>(Kinds.NetworkAttachmentDefinition, {
      name,
      namespace,
    });
    if (nad) nads.push(nad);
    else missing.push(name);
  }
  return { nads, missing };
}

/** One entry of a pod's network-status annotation. */
export interface NetworkStatus {
  name: string;
  interface?: string;
  ips?: string[];
  mac?: string;
  default?: boolean;
}

/** Parses a network-status annotation; a missing or malformed one reads as no networks. */
export function parseNetworkStatus(annotation: string | undefined): NetworkStatus[] {
  if (!annotation) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(annotation);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((e): e is NetworkStatus => isPlainObject(e) && typeof e['name'] === 'string');
}

export interface NetworkAttachmentsVerdict {
  /** Every requested network has at least `readyCount` IPs across the pods. */
  ready: boolean;
  /** For `status.networkAttachments`: `<ns>/<nad>` → the pods' IPs on it (sorted), requested networks only. */
  networkAttachments: Record<string, string[]>;
  /** Requested NAD names that do not have enough IPs yet (for the condition message). */
  missing: string[];
}

/**
 * NetworkAttachmentsReady from the pods' network-status annotations (upstream
 * `VerifyNetworkStatusFromAnnotation`): with nothing requested it is ready; otherwise every
 * requested NAD, as `<namespace>/<nad>`, must carry at least `readyCount` IPs over all `pods`
 * (the caller passes the service's pods, selected by its labels).
 */
export function verifyNetworkStatus(input: {
  requested: readonly string[];
  namespace: string;
  pods: readonly KubeObject[];
  readyCount: number;
}): NetworkAttachmentsVerdict {
  if (input.requested.length === 0) return { ready: true, networkAttachments: {}, missing: [] };
  const ips = new Map<string, string[]>();
  for (const pod of input.pods) {
    for (const s of parseNetworkStatus(pod.metadata.annotations?.[NETWORK_STATUS_ANNOTATION])) {
      ips.set(s.name, [...(ips.get(s.name) ?? []), ...(s.ips ?? [])]);
    }
  }
  const networkAttachments: Record<string, string[]> = {};
  const missing: string[] = [];
  for (const nad of input.requested) {
    const key = `${input.namespace}/${nad}`;
    const found = [...(ips.get(key) ?? [])].sort();
    if (found.length > 0) networkAttachments[key] = found;
    if (found.length < input.readyCount) missing.push(nad);
  }
  return { ready: missing.length === 0, networkAttachments, missing };
}

/**
 * NetworkAttachmentsReady from a verdict: True when ready; otherwise False (Error, Warning) with
 * upstream's text "NetworkAttachments error occurred not all pods have interfaces with ips as
 * configured in NetworkAttachments: [<missing…>]", naming the attachments still missing (upstream
 * names every requested one, which does not say which is the problem).
 */
export function markNetworkAttachmentsCondition(
  conditions: Conditions,
  verdict: NetworkAttachmentsVerdict,
): Conditions {
  const type = ConditionType.NetworkAttachmentsReady;
  if (verdict.ready) return conditions.markTrue(type);
  return conditions.markFalse(type, Reason.Error, Severity.Warning, ConditionCatalog[type].notAllPods, [
    ...verdict.missing,
  ]);
}
