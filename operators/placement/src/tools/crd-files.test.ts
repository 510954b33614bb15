import { crdFreeFormObjects } from '@stackops/lib-common/schema';
import { checkCrdFiles, renderCrdFile } from '@stackops/lib-common/schema/files';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { crdDefinitions } from '../api/crds.js';
import { chartCrdDir, crdFileOptions } from './crd-files.js';

describe('chart CRDs', () => {
  it('crds/ is what the schema generates (run `npm run gen:crds` after changing the API)', async () => {
    expect(await checkCrdFiles(crdDefinitions, chartCrdDir, crdFileOptions)).toEqual([]);
  });

  it('keeps no unknown field anywhere: every object is closed', () => {
    expect(crdFreeFormObjects(crdDefinitions)).toEqual([]);
  });

  it('carries upstream defaults, the policy.yaml-only rule and the printer columns', () => {
    const crd = parse(renderCrdFile(crdDefinitions[0]!, crdFileOptions));
    const version = crd.spec.versions[0];
    const spec = version.schema.openAPIV3Schema.properties.spec;
    expect(crd.metadata.name).toBe('placementapis.placement.openstack.org');
    expect(spec.required).toEqual(expect.arrayContaining(['databaseInstance', 'secret']));
    expect(spec.required).not.toContain('containerImage');
    expect(spec.properties.replicas).toMatchObject({ default: 1, minimum: 0, maximum: 32 });
    expect(spec.properties.apiTimeout).toMatchObject({ default: 60, minimum: 0 });
    expect(spec.properties.serviceUser.default).toBe('placement');
    expect(spec.properties.databaseAccount.default).toBe('placement');
    expect(spec.properties.passwordSelectors.default).toEqual({ service: 'PlacementPassword' });
    expect(spec.properties.preserveJobs.default).toBe(false);
    expect(spec.properties.defaultConfigOverwrite['x-kubernetes-validations'][0].rule).toBe(
      "self.all(k, k in ['policy.yaml'])",
    );
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual([
      'NetworkAttachments',
      'Status',
      'Message',
      'Age',
    ]);
    expect(version.subresources).toEqual({ status: {} });
  });
});
