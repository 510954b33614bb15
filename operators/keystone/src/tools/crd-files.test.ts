import { crdFreeFormObjects } from '@stackops/lib-common/schema';
import { checkCrdFiles } from '@stackops/lib-common/schema/files';
import { describe, expect, it } from 'vitest';
import { FREE_FORM_OBJECTS, keystoneCrds } from '../api/crds.js';
import { chartCrdDir, crdFileOptions } from './crd-files.js';

describe('generated CRDs', () => {
  it("match the chart's crds/ folder (run `npm run gen:crds` after changing the API)", async () => {
    expect(await checkCrdFiles(keystoneCrds, chartCrdDir, crdFileOptions)).toEqual([]);
  });

  it('keeps unknown fields only in the objects documented as free-form, with why', () => {
    expect(crdFreeFormObjects(keystoneCrds)).toEqual(Object.keys(FREE_FORM_OBJECTS));
  });
});
