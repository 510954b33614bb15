import { describe, expect, it } from 'vitest';
import { claim, isOwnedBy, markerOf, type Owner, ownerOf } from './ownership.js';

const me: Owner = { kind: 'KeystoneService', namespace: 'openstack', name: 'placement', uid: 'u1' };
const marked = (value: string | null | undefined) => ({ stackops_owner: value });

describe('Keystone object ownership marker', () => {
  it('writes and reads `<Kind>/<namespace>/<name>/<uid>`; anything else is no owner', () => {
    expect(markerOf(me)).toBe('KeystoneService/openstack/placement/u1');
    expect(ownerOf(marked(markerOf(me)))).toEqual(me);
    for (const v of [undefined, null, '', 'x', 'Pod/a/b/c', 'KeystoneService//b/c', 'KeystoneService/a/b']) {
      expect(ownerOf(marked(v))).toBeUndefined();
    }
    expect(isOwnedBy(marked('KeystoneService/openstack/placement/other-uid'), me)).toBe(true);
    expect(isOwnedBy(marked('KeystoneEndpoint/openstack/placement/u1'), me)).toBe(false);
  });

  it('claims its own objects, re-marks a previous incarnation, adopts only unmarked ones when asked', () => {
    expect(claim('user "p"', marked(markerOf(me)), me, false)).toBe('owned');
    expect(claim('user "p"', marked('KeystoneService/openstack/placement/old'), me, false)).toBe('mark');
    expect(claim('user "p"', marked(undefined), me, true)).toBe('mark');
    expect(() => claim('user "p"', marked(undefined), me, false)).toThrow(
      'user "p" is not owned by this KeystoneService (no owner; annotate keystone.openstack.org/adopt: "true" to adopt it)',
    );
    expect(() => claim('user "p"', marked('KeystoneService/other/placement/u2'), me, true)).toThrow(
      'user "p" is not owned by this KeystoneService (it belongs to KeystoneService other/placement)',
    );
  });
});
