import { join } from 'node:path';
import { assertFieldsCovered, crdVersionCases } from '@stackops/lib-common/schema';
import { readTestSources } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { crdDefinitions } from './crds.js';

/** Every test file of the package: a coverage entry must name a test found in one of them. */
const testSources = readTestSources(join(import.meta.dirname, '../..'));

/**
 * Every field of the NetworkAddonsConfig spec and the behaviour test that proves it works
 * (nothing is refused: every upstream field is implemented). A new field fails this walk until it
 * is implemented and tested, or refused by CEL as "not supported yet".
 */
const coverage = {
  'spec.multus': 'all components together become Available, with the expected objects, labels and owners',
  'spec.multusDynamicNetworks':
    'all components together become Available, with the expected objects, labels and owners',
  'spec.multusDynamicNetworks.hostCRISocketPath':
    'mount the configured CRI socket into the dynamic networks controller',
  'spec.linuxBridge':
    'all components together become Available, with the expected objects, labels and owners',
  'spec.kubeMacPool': 'generates a MAC range once and keeps it across spec changes and operator restarts',
  'spec.kubeMacPool.rangeStart': 'an explicit range replaces the generated one on day 2, verbatim',
  'spec.kubeMacPool.rangeEnd': 'an explicit range replaces the generated one on day 2, verbatim',
  'spec.nmstate': 'all components together become Available, with the expected objects, labels and owners',
  'spec.ovs': 'all components together become Available, with the expected objects, labels and owners',
  'spec.macvtap': 'all components together become Available, with the expected objects, labels and owners',
  'spec.macvtap.devicePluginConfig': 'point the macvtap device plugin at the configured ConfigMap',
  'spec.kubeSecondaryDNS':
    'all components together become Available, with the expected objects, labels and owners',
  'spec.kubeSecondaryDNS.domain': 'configure the secondary DNS domain and name server',
  'spec.kubeSecondaryDNS.nameServerIP': 'configure the secondary DNS domain and name server',
  'spec.kubevirtIpamController':
    'all components together become Available, with the expected objects, labels and owners',
  'spec.kubevirtIpamController.defaultNetworkNADNamespace':
    'pass the default network NAD namespace to the ipam controller only when set',
  'spec.imagePullPolicy': 'give every container its component image and the pull policy',
  'spec.selfSignConfiguration': 'configure KubeMacPool from the range and the self-sign configuration',
  'spec.placementConfiguration':
    'place DaemonSets with the workloads placement and Deployments with the infra placement',
  'spec.tlsSecurityProfile':
    'generate a range for KubeMacPool when none is given, and pass TLS ciphers of older profiles',
  'spec.tlsSecurityProfile.custom': 'takes a Custom profile as given, de-duplicated',
} as const;

describe('field walk: every NetworkAddonsConfig field works or is refused', () => {
  it.each(crdVersionCases(crdDefinitions))('%s', (_version, schema) => {
    const result = assertFieldsCovered(schema, coverage, { testSources });
    expect(result.fields.length).toBeGreaterThan(20);
  });
});
