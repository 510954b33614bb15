import { fileURLToPath } from 'node:url';
import { assertFieldsCovered, crdVersionSchemas } from '@stackops/lib-common/schema';
import { readTestSources } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { keystoneApplicationCredentialCrd } from '../../api/crds.js';
import { acSecretName, serviceOfAcName } from '../../api/keystone-application-credential.js';
import { securityHash } from './application-credentials.js';

const spec = { secret: 'osp-secret', passwordSelector: 'PlacementPassword', userName: 'placement' };

describe('application credential naming and hashing', () => {
  it('securityHash is upstream ObjectHash of {Roles, AccessRules, Unrestricted}, so taking over keeps the credential', () => {
    // Values printed by Go (encoding/json, sha256, fmt.Sprint, rand.SafeEncodeString) for the same input.
    expect(securityHash({ ...spec, roles: ['service'] })).toBe(
      'n5c5h646h55bh654h6h5b9h644h5d7h5dfh56h68fh64ch547h596h98h658h584h57ch67dh64bhbbhd6hf7h657h5fh547h5ffhbh5bhf4h5d5h55q',
    );
    expect(
      securityHash({
        ...spec,
        roles: ['service', 'reader'],
        accessRules: [{ service: 'compute', path: '/v2.1/servers/*', method: 'GET' }],
        unrestricted: true,
      }),
    ).toBe(
      'n5d9h5bh698h5b8h685h656h5cbh5f4h5b6h55dh9hf8h5fch5f7h7dh64ch685h59fh6h56h67fh664h6fh67hb7h5fchddh65h657h67fhfdh54cq',
    );
  });

  it('names the Secret ac-<service>-<first 5 of the ID>-secret', () => {
    expect(serviceOfAcName('ac-placement')).toBe('placement');
    expect(acSecretName('ac-placement', '7b23dbac20bc4f048f937415c84bb329')).toBe(
      'ac-placement-7b23d-secret',
    );
    expect(acSecretName('custom', 'abcdef')).toBe('ac-custom-abcde-secret');
  });
});

const testSources = readTestSources(fileURLToPath(new URL('../../..', import.meta.url)));
const CREATE = 'creates the credential in an immutable Secret that logs in to Keystone';
const coverage = {
  'spec.secret': CREATE,
  'spec.passwordSelector':
    'a changed role list rotates at once; a role the user lacks and a missing password key are errors naming the field, with an Event',
  'spec.userName': CREATE,
  'spec.expirationDays': CREATE,
  'spec.gracePeriodDays':
    'the API server refuses gracePeriodDays not below expirationDays, and defaults both as upstream',
  'spec.roles':
    'a changed role list rotates at once; a role the user lacks and a missing password key are errors naming the field, with an Event',
  'spec.unrestricted':
    'a changed role list rotates at once; a role the user lacks and a missing password key are errors naming the field, with an Event',
  'spec.accessRules': 'access rules reach Keystone: the credential is limited to them',
};

describe('field coverage (issue 16: every field works or is refused)', () => {
  it('every KeystoneApplicationCredential spec field is proven by a named test', () => {
    const schema = crdVersionSchemas(keystoneApplicationCredentialCrd)[0]?.schema ?? {};
    assertFieldsCovered(schema, coverage, { testSources });
  });
});
