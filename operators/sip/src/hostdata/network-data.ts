import type * as Yaml from '@stackops/lib-common/yaml';

/** The parts of an OpenStack network_data document SIP uses. */
export interface NetworkData {
  links: { id: string }[];
  networks: { id: string; link: string | undefined; ipAddress: string | undefined }[];
}

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Whether `text` is a JSON document (what metal3 and its generators write). */
export const isJson = (text: string): boolean => parseJson(text) !== undefined;

/** lib-common's YAML parser, given by the caller that imported it when needed (ADR 0057). */
export type ParseYaml = typeof Yaml.parseYaml;

/**
 * Parses network_data (JSON, or YAML as metal3 also accepts). Throws with a short reason when the
 * document is not an object; unknown fields are ignored.
 */
export function parseNetworkData(text: string, parseYaml: ParseYaml): NetworkData {
  let doc: unknown;
  try {
    // JSON (what metal3 and its generators write) natively first: a YAML parser reads it too, at
    // many times the CPU on every pass over the hosts.
    doc = parseJson(text) ?? parseYaml(text);
  } catch (e) {
    throw new Error(`networkData is neither JSON nor YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const root = asRecord(doc);
  if (!root) throw new Error('networkData is not an object with links and networks');
  const list = (v: unknown) => (Array.isArray(v) ? v.map(asRecord).filter((x) => x !== undefined) : []);
  return {
    links: list(root['links']).map((l) => ({ id: asString(l['id']) ?? '' })),
    networks: list(root['networks']).map((n) => ({
      id: asString(n['id']) ?? '',
      link: asString(n['link']),
      ipAddress: asString(n['ip_address']),
    })),
  };
}

/** An address without a trailing prefix length (some generators write 10.0.0.5/24). */
const bareAddress = (ip: string): string => ip.replace(/\/\d+$/, '');

/**
 * The host's IP on an interface: the network whose id is `interfaceId`, else the first network
 * with an address on the link whose id is `interfaceId`; with no interface id, the first network
 * that has an address. Undefined when there is none.
 */
export function ipOnInterface(nd: NetworkData, interfaceId: string | undefined): string | undefined {
  const withIp = nd.networks.filter((n) => n.ipAddress !== undefined);
  const found = interfaceId
    ? (withIp.find((n) => n.id === interfaceId) ?? withIp.find((n) => n.link === interfaceId))
    : withIp[0];
  return found?.ipAddress ? bareAddress(found.ipAddress) : undefined;
}
