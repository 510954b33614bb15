/** A BMC address split into what the jump host needs. */
export interface BmcAddress {
  /** The full address as written in the BareMetalHost. */
  address: string;
  /** metal3 driver: the scheme before any `+transport` (ipmi, redfish, idrac-redfish, …). */
  driver: string;
  /** Which tool talks to it: redfishtool, ipmitool, or none we know. */
  protocol: 'redfish' | 'ipmi' | 'other';
  /** Host and port as in the URL (upstream's "BMC IP": `URL.host`). */
  host: string;
  /** Host without port (IPv6 in brackets). */
  hostname: string;
  port: number | undefined;
  /** Path of the URL (Redfish system id), '' when none. */
  path: string;
}

/**
 * Parses metal3 BMC addresses: `ipmi://10.0.0.1:623`, `redfish+https://10.0.0.1/redfish/v1/Systems/1`,
 * `idrac-virtualmedia://…`, and metal3's schemeless `10.0.0.1[:623]` (IPMI). Throws on anything else.
 */
export function parseBmcAddress(address: string): BmcAddress {
  const trimmed = address.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `ipmi://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`invalid BMC address ${address}`);
  }
  if (!url.hostname) throw new Error(`invalid BMC address ${address}: no host`);
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  const driver = scheme.split('+')[0]!;
  const protocol =
    driver === 'ipmi'
      ? 'ipmi'
      : driver.includes('redfish') || driver.endsWith('virtualmedia')
        ? 'redfish'
        : 'other';
  return {
    address: trimmed,
    driver,
    protocol,
    host: url.host,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname === '/' ? '' : url.pathname,
  };
}
