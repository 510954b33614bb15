import { crdFreeFormObjects } from '@stackops/lib-common/schema';
import { checkCrdFiles, renderCrdFile } from '@stackops/lib-common/schema/files';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { crdDefinitions } from '../api/crds.js';
import { GO_DURATION_PATTERN } from '../api/duration.js';
import { chartCrdDir, crdFileOptions } from './crd-files.js';

type Schema = { properties: Record<string, Schema> } & Record<string, unknown>;

const crd = () => parse(renderCrdFile(crdDefinitions[0]!, crdFileOptions));

describe('chart CRDs', () => {
  it('crds/ is what the schema generates (run `npm run gen:crds` after changing the API)', async () => {
    expect(await checkCrdFiles(crdDefinitions, chartCrdDir, crdFileOptions)).toEqual([]);
  });

  it('keeps no unknown field anywhere: every object is closed', () => {
    expect(crdFreeFormObjects(crdDefinitions)).toEqual([]);
  });

  it('is cluster scoped, serves v1 (storage) and v1alpha1 (deprecated) with one schema', () => {
    const c = crd();
    expect(c.metadata.name).toBe('networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io');
    expect(c.spec.scope).toBe('Cluster');
    const [v1, v1alpha1] = c.spec.versions;
    expect([v1.name, v1.served, v1.storage, v1.deprecated]).toEqual(['v1', true, true, undefined]);
    expect([v1alpha1.name, v1alpha1.served, v1alpha1.storage, v1alpha1.deprecated]).toEqual([
      'v1alpha1',
      true,
      false,
      true,
    ]);
    expect(v1alpha1.schema).toEqual(v1.schema);
    expect(v1.subresources).toEqual({ status: {} });
  });

  it('validates formats the API server can check', () => {
    const spec: Schema = crd().spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.properties['imagePullPolicy']!['enum']).toEqual(['Always', 'IfNotPresent', 'Never']);
    const kmp = spec.properties['kubeMacPool']!;
    const macPattern = new RegExp(kmp.properties['rangeStart']!['pattern'] as string);
    expect(
      ['02:00:00:00:00:00', 'FD:FF:FF:FF:FF:FF', '02-00-00-00-00-00', '0200.0000.0000', ''].every((m) =>
        macPattern.test(m),
      ),
    ).toBe(true);
    expect(
      ['this:aint:right', '02:00:00:00:00', '00:00:00:00:00:00:00'].some((m) => macPattern.test(m)),
    ).toBe(false);
    const ssc = spec.properties['selfSignConfiguration']!;
    expect(ssc['required']).toEqual([
      'caRotateInterval',
      'caOverlapInterval',
      'certRotateInterval',
      'certOverlapInterval',
    ]);
    expect(ssc.properties['caRotateInterval']!['pattern']).toBe(GO_DURATION_PATTERN);
    expect(spec.properties['multusDynamicNetworks']!.properties['hostCRISocketPath']!['enum']).toHaveLength(
      3,
    );
    const tls = spec.properties['tlsSecurityProfile']!;
    expect(tls['nullable']).toBe(true);
    expect(tls.properties['type']!['enum']).toEqual(['Old', 'Intermediate', 'Modern', 'Custom']);
  });

  it('has every upstream spec field, and the status fields', () => {
    const schema = crd().spec.versions[0].schema.openAPIV3Schema;
    expect(Object.keys(schema.properties.spec.properties).sort()).toEqual(
      [
        'imagePullPolicy',
        'kubeMacPool',
        'kubeSecondaryDNS',
        'kubevirtIpamController',
        'linuxBridge',
        'macvtap',
        'multus',
        'multusDynamicNetworks',
        'nmstate',
        'ovs',
        'placementConfiguration',
        'selfSignConfiguration',
        'tlsSecurityProfile',
      ].sort(),
    );
    const placement = schema.properties.spec.properties.placementConfiguration.properties;
    expect(Object.keys(placement.infra.properties)).toEqual(['nodeSelector', 'affinity', 'tolerations']);
    expect(Object.keys(schema.properties.status.properties)).toEqual([
      'conditions',
      'observedGeneration',
      'kubeMacPoolRange',
      'operatorVersion',
      'observedVersion',
      'targetVersion',
      'containers',
    ]);
    expect(schema.properties.status.properties.containers.items.required).toEqual([
      'parentKind',
      'parentName',
      'name',
      'image',
    ]);
  });

  it('prints Available, Progressing, Degraded and the observed version', () => {
    const columns = crd().spec.versions[0].additionalPrinterColumns;
    expect(columns.map((c: { name: string }) => c.name)).toEqual([
      'Available',
      'Progressing',
      'Degraded',
      'ObservedVersion',
      'Age',
    ]);
    expect(columns[0].jsonPath).toBe('.status.conditions[?(@.type=="Available")].status');
  });
});
