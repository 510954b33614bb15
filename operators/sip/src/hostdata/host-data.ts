import { BMC_PASSWORD_KEY, BMC_USERNAME_KEY, NETWORK_DATA_KEY } from '../api/constants.js';
import type { BareMetalHost } from '../api/kinds.js';
import type { Host } from '../scheduling/schedule.js';
import { type BmcAddress, parseBmcAddress } from './bmc-address.js';
import { ipOnInterface, isJson, type NetworkData, type ParseYaml, parseNetworkData } from './network-data.js';

/** A Secret as plain JSON (only what is read here). */
export interface SecretLike {
  data?: Record<string, string>;
}
export type SecretLookup = (namespace: string, name: string) => SecretLike | undefined;

interface BmcInfo extends BmcAddress {
  username: string;
  password: string;
}

/** What SIP extracted from one BareMetalHost and its Secrets; `*Error` says why a part is missing. */
export interface HostData {
  host: Host;
  /** namespace/name of the networkData Secret, when the host names one. */
  networkDataSecret: string | undefined;
  networkData: NetworkData | undefined;
  networkDataError: string | undefined;
  bmc: BmcInfo | undefined;
  bmcError: string | undefined;
}

export const hostOf = (bmh: BareMetalHost): Host => ({
  namespace: bmh.metadata.namespace ?? '',
  name: bmh.metadata.name ?? '',
  labels: bmh.metadata.labels ?? {},
});

const decode = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

/** The networkData Secret a host names (its namespace defaults to the host's), or undefined. */
export function networkDataSecretRef(bmh: BareMetalHost): { namespace: string; name: string } | undefined {
  const ref = bmh.spec?.networkData;
  if (!ref?.name) return undefined;
  return { namespace: ref.namespace || (bmh.metadata.namespace ?? ''), name: ref.name };
}

/** The host's networkData document, or why it has none. */
function networkDataText(
  bmh: BareMetalHost,
  secrets: SecretLookup,
): { where: string | undefined; text: string } | { where: string | undefined; error: string } {
  const ref = networkDataSecretRef(bmh);
  if (!ref) return { where: undefined, error: 'spec.networkData is not set' };
  const where = `${ref.namespace}/${ref.name}`;
  const secret = secrets(ref.namespace, ref.name);
  if (!secret) return { where, error: `networkData Secret ${where} not found` };
  const raw = secret.data?.[NETWORK_DATA_KEY];
  if (raw === undefined)
    return { where, error: `networkData Secret ${where} has no key ${NETWORK_DATA_KEY}` };
  return { where, text: decode(raw) };
}

/**
 * Whether a host's networkData is something other than JSON (YAML, or text only the YAML parser
 * can say what is wrong with): only then does a pass need the YAML parser.
 */
export function networkDataBesidesJson(bmh: BareMetalHost, secrets: SecretLookup): boolean {
  const found = networkDataText(bmh, secrets);
  return 'text' in found && !isJson(found.text);
}

function readNetworkData(
  bmh: BareMetalHost,
  secrets: SecretLookup,
  parseYaml: ParseYaml,
): Pick<HostData, 'networkData' | 'networkDataError' | 'networkDataSecret'> {
  const found = networkDataText(bmh, secrets);
  if ('error' in found)
    return { networkDataSecret: found.where, networkData: undefined, networkDataError: found.error };
  try {
    return {
      networkDataSecret: found.where,
      networkData: parseNetworkData(found.text, parseYaml),
      networkDataError: undefined,
    };
  } catch (e) {
    return {
      networkDataSecret: found.where,
      networkData: undefined,
      networkDataError: `networkData Secret ${found.where}: ${(e as Error).message}`,
    };
  }
}

function readBmc(bmh: BareMetalHost, secrets: SecretLookup): Pick<HostData, 'bmc' | 'bmcError'> {
  const bmc = bmh.spec?.bmc;
  if (!bmc?.address) return { bmc: undefined, bmcError: 'spec.bmc.address is not set' };
  let address: BmcAddress;
  try {
    address = parseBmcAddress(bmc.address);
  } catch (e) {
    return { bmc: undefined, bmcError: (e as Error).message };
  }
  if (!bmc.credentialsName) return { bmc: undefined, bmcError: 'spec.bmc.credentialsName is not set' };
  const ns = bmh.metadata.namespace ?? '';
  const secret = secrets(ns, bmc.credentialsName);
  const where = `${ns}/${bmc.credentialsName}`;
  if (!secret) return { bmc: undefined, bmcError: `BMC credentials Secret ${where} not found` };
  const username = secret.data?.[BMC_USERNAME_KEY];
  const password = secret.data?.[BMC_PASSWORD_KEY];
  if (username === undefined || password === undefined) {
    return {
      bmc: undefined,
      bmcError: `BMC credentials Secret ${where} must contain '${BMC_USERNAME_KEY}' and '${BMC_PASSWORD_KEY}'`,
    };
  }
  return { bmc: { ...address, username: decode(username), password: decode(password) }, bmcError: undefined };
}

/** Reads everything SIP needs from a host and its Secrets; never throws. */
export function readHostData(bmh: BareMetalHost, secrets: SecretLookup, parseYaml: ParseYaml): HostData {
  return { host: hostOf(bmh), ...readNetworkData(bmh, secrets, parseYaml), ...readBmc(bmh, secrets) };
}

/** What the services need from a role's hosts: IPs on these interfaces (undefined = any), and the BMC. */
export interface RoleNeeds {
  interfaces: ReadonlySet<string | undefined>;
  bmc: boolean;
}

const ifaceName = (i: string | undefined) => (i === undefined ? 'any interface' : `interface ${i}`);

/** Why a host cannot serve a role with these needs (names the host's Secret and interface), or undefined. */
export function hostProblem(data: HostData, needs: RoleNeeds): string | undefined {
  if (needs.interfaces.size > 0) {
    if (!data.networkData) {
      const ifaces = [...needs.interfaces].map(ifaceName).join(', ');
      return `${data.networkDataError} (needed for the IP on ${ifaces})`;
    }
    for (const iface of needs.interfaces) {
      if (ipOnInterface(data.networkData, iface) === undefined) {
        return `no IP on ${ifaceName(iface)} in networkData Secret ${data.networkDataSecret}`;
      }
    }
  }
  if (needs.bmc && !data.bmc) return data.bmcError;
  return undefined;
}

/** The host's IP on an interface (the caller checked `hostProblem` first). */
export function hostIp(data: HostData, iface: string | undefined): string | undefined {
  return data.networkData ? ipOnInterface(data.networkData, iface) : undefined;
}
