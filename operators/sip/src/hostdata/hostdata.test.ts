import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { BareMetalHost } from '../api/kinds.js';
import { parseBmcAddress } from './bmc-address.js';
import { hostProblem, networkDataBesidesJson, readHostData, type SecretLike } from './host-data.js';
import { ipOnInterface, parseNetworkData } from './network-data.js';

const networkDataJson = JSON.stringify({
  links: [
    { id: 'eno4', type: 'phy' },
    { id: 'bond0', type: 'bond' },
    { id: 'bond0.41', type: 'vlan', vlan_link: 'bond0' },
  ],
  networks: [
    { id: 'oam-ipv6', type: 'ipv6', link: 'bond0.41', ip_address: '2001:1890:1001:293d::139' },
    {
      id: 'oam-ipv4',
      type: 'ipv4',
      link: 'bond0.41',
      ip_address: '32.68.51.139',
      netmask: '255.255.255.128',
    },
    { id: 'pxe-ipv4', type: 'ipv4', link: 'eno4', ip_address: '172.30.0.11/25' },
    { id: 'empty', type: 'ipv4', link: 'eno9' },
  ],
});

describe('networkData', () => {
  const nd = parseNetworkData(networkDataJson, parse);

  it.each([
    ['oam-ipv4', '32.68.51.139'],
    ['oam-ipv6', '2001:1890:1001:293d::139'],
    ['pxe-ipv4', '172.30.0.11'],
    ['eno4', '172.30.0.11'],
    ['bond0.41', '2001:1890:1001:293d::139'],
    [undefined, '2001:1890:1001:293d::139'],
    ['empty', undefined],
    ['missing', undefined],
  ])('interface %s → %s', (iface, ip) => {
    expect(ipOnInterface(nd, iface)).toBe(ip);
  });

  it('reads YAML as well as JSON', () => {
    const yaml = 'networks:\n  - id: oam-ipv4\n    link: eth0\n    ip_address: 10.0.0.7\n';
    expect(ipOnInterface(parseNetworkData(yaml, parse), 'oam-ipv4')).toBe('10.0.0.7');
  });

  it.each(['[1, 2]', '"text"', '{ not: [valid'])('rejects %s', (text) => {
    expect(() => parseNetworkData(text, parse)).toThrow(/networkData/);
  });
});

describe('networkDataBesidesJson', () => {
  const host = {
    metadata: { name: 'h', namespace: 'ns' },
    spec: { networkData: { name: 'nd' } },
  } as BareMetalHost;
  const holding = (text: string) => () => ({ data: { networkData: Buffer.from(text).toString('base64') } });
  it.each([
    [networkDataJson, false],
    ['networks:\n  - id: oam\n', true],
    ['{ not: [valid', true],
  ])('%s → %s', (text, expected) => {
    expect(networkDataBesidesJson(host, holding(text))).toBe(expected);
  });
  it('is false when there is no document to read', () => {
    expect(networkDataBesidesJson(host, () => undefined)).toBe(false);
    expect(networkDataBesidesJson({ ...host, spec: {} } as BareMetalHost, holding('x: 1'))).toBe(false);
  });
});

describe('BMC address', () => {
  it.each([
    [
      'redfish+https://32.68.51.12/redfish/v1/Systems/System.Embedded.1',
      'redfish',
      'redfish',
      '32.68.51.12',
      '/redfish/v1/Systems/System.Embedded.1',
    ],
    [
      'redfish+http://10.0.0.1:8000/redfish/v1/Systems/vm-1',
      'redfish',
      'redfish',
      '10.0.0.1:8000',
      '/redfish/v1/Systems/vm-1',
    ],
    ['ipmi://192.168.1.10:623', 'ipmi', 'ipmi', '192.168.1.10:623', ''],
    ['192.168.1.11', 'ipmi', 'ipmi', '192.168.1.11', ''],
    [
      'idrac-virtualmedia://10.1.1.1/redfish/v1/Systems/1',
      'idrac-virtualmedia',
      'redfish',
      '10.1.1.1',
      '/redfish/v1/Systems/1',
    ],
    ['ipmi://[fd00::5]:623', 'ipmi', 'ipmi', '[fd00::5]:623', ''],
    ['irmc://10.2.2.2', 'irmc', 'other', '10.2.2.2', ''],
  ])('%s', (address, driver, protocol, host, path) => {
    expect(parseBmcAddress(address)).toMatchObject({ driver, protocol, host, path });
  });

  it.each(['redfish+https://', 'ipmi://bad host'])('rejects %s', (address) => {
    expect(() => parseBmcAddress(address)).toThrow(`invalid BMC address ${address}`);
  });
});

describe('host data', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secrets: Record<string, SecretLike> = {
    'metal3/h1-nd': { data: { networkData: b64(networkDataJson) } },
    'metal3/h1-bmc': { data: { username: b64('root'), password: b64('s3cret') } },
    'metal3/no-key': { data: { other: b64('x') } },
    'metal3/bad-bmc': { data: { username: b64('root') } },
  };
  const lookup = (ns: string, name: string) => secrets[`${ns}/${name}`];
  const bmh = (spec: BareMetalHost['spec']): BareMetalHost => ({
    metadata: { name: 'h1', namespace: 'metal3' },
    spec,
  });
  const needs = (interfaces: (string | undefined)[], bmc = false) => ({
    interfaces: new Set(interfaces),
    bmc,
  });
  const good = {
    networkData: { name: 'h1-nd' },
    bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'h1-bmc' },
  };

  it('a missing Secret names the interface it was needed for', () => {
    const spec = { ...good, networkData: { name: 'gone' } };
    expect(hostProblem(readHostData(bmh(spec), lookup, parse), needs(['oam-ipv4']))).toBe(
      'networkData Secret metal3/gone not found (needed for the IP on interface oam-ipv4)',
    );
  });

  it('extracts the IP and the BMC with its credentials', () => {
    const data = readHostData(bmh(good), lookup, parse);
    expect(hostProblem(data, needs(['oam-ipv4'], true))).toBeUndefined();
    expect(data.bmc).toMatchObject({ host: '10.0.0.1', username: 'root', password: 's3cret' });
  });

  it.each([
    ['no networkData', { ...good, networkData: undefined }, 'spec.networkData is not set'],
    [
      'missing Secret',
      { ...good, networkData: { name: 'gone', namespace: 'metal3' } },
      'networkData Secret metal3/gone not found',
    ],
    [
      'Secret without the key',
      { ...good, networkData: { name: 'no-key' } },
      'networkData Secret metal3/no-key has no key networkData',
    ],
    ['missing interface', good, 'no IP on interface storage-ipv4 in networkData Secret metal3/h1-nd'],
  ])('%s → %s', (_, spec, problem) => {
    expect(hostProblem(readHostData(bmh(spec), lookup, parse), needs(['oam-ipv4', 'storage-ipv4']))).toMatch(
      new RegExp(`^${problem.replaceAll('.', '\\.')}`),
    );
  });

  it.each([
    [
      'no BMC credentials Secret',
      { ...good, bmc: { address: 'ipmi://1.1.1.1', credentialsName: 'x' } },
      'BMC credentials Secret metal3/x not found',
    ],
    [
      'incomplete credentials',
      { ...good, bmc: { address: 'ipmi://1.1.1.1', credentialsName: 'bad-bmc' } },
      "must contain 'username' and 'password'",
    ],
    [
      'bad address',
      { ...good, bmc: { address: 'redfish+https://', credentialsName: 'h1-bmc' } },
      'invalid BMC address',
    ],
  ])('%s is a problem only when the BMC is needed', (_, spec, problem) => {
    const data = readHostData(bmh(spec), lookup, parse);
    expect(hostProblem(data, needs(['oam-ipv4'], false))).toBeUndefined();
    expect(hostProblem(data, needs(['oam-ipv4'], true))).toContain(problem);
  });
});
