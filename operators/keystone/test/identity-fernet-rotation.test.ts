import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityClient } from '../src/identity/client.js';
import { fernetKeysFromSecretData } from '../src/testing/index.js';
import { createKeystone, preparedNamespace } from './support/keystone.js';
import { useKeystoneSuite } from './support/keystone-server/operator.js';

type SecretObj = KubeObject & { data?: Record<string, string> };
const ROTATED_AT = 'keystone.openstack.org/rotatedat';

// Keys generated and rotated by the KeystoneAPI controller (its `keystone` Secret) sign and validate
// real Keystone tokens: a token issued before a rotation still validates after it.
describe('fernet keys of the operator in a real Keystone', () => {
  const suite = useKeystoneSuite({ beforeAll, afterAll });

  const keysSecret = (ns: string) =>
    suite.client.get<SecretObj>(Kinds.Secret, { namespace: ns, name: 'keystone' });
  /** A fresh login of the bootstrap admin: a new token signed with the current primary key. */
  const freshToken = async () =>
    (
      await new IdentityClient({
        authUrl: suite.keystone.url,
        username: suite.keystone.adminUser,
        password: suite.keystone.adminPassword,
      }).currentToken()
    ).token;

  it('a token issued with the operator keys validates, also after one rotation', async () => {
    const { client, keystone, admin } = suite;
    const ns = await preparedNamespace({ client, namespace: () => suite.namespace('ksf') });
    await createKeystone(client, ns, {});
    const secret = await waitUntil('the keystone Secret with 5 fernet keys', async () => {
      const s = await keysSecret(ns);
      return fernetKeysFromSecretData(s?.data).length === 5 ? s : undefined;
    });
    const before = fernetKeysFromSecretData(secret.data);

    await keystone.writeFernetKeys(before);
    expect(await keystone.readFernetKeys()).toEqual(before);
    const token = await freshToken();
    expect(await admin.validateToken(token)).toMatchObject({ user: { name: 'admin' } });

    // Control: the same token is refused by a repository that does not hold the operator's keys.
    await keystone.writeFernetKeys(
      fernetKeysFromSecretData({ FernetKeys0: secret.data?.['CredentialKeys0'] ?? '' }),
    );
    expect(await admin.validateToken(token)).toBeUndefined();
    await keystone.writeFernetKeys(before);
    expect(await admin.validateToken(token)).toBeDefined();

    // Rotation as the kuttl test triggers it: rotatedat moved into the past.
    await client.patch(
      Kinds.Secret,
      { namespace: ns, name: 'keystone' },
      { metadata: { annotations: { [ROTATED_AT]: '2009-11-10T23:00:00Z' } } },
      'merge',
    );
    const rotated = await waitUntil('the keys rotated', async () => {
      const keys = fernetKeysFromSecretData((await keysSecret(ns))?.data);
      return keys.length === 5 && keys[0] !== before[0] ? keys : undefined;
    });
    // Upstream's rotation: the staged key becomes the primary, the oldest secondary goes, a new key is staged.
    expect(rotated[4]).toBe(before[0]);
    expect(rotated.slice(1, 4)).toEqual(before.slice(2, 5));
    expect(rotated).not.toContain(before[1]);

    await keystone.writeFernetKeys(rotated);
    expect(await admin.validateToken(token)).toMatchObject({ user: { name: 'admin' } });
    // New tokens are signed with the new primary (the former staged key) and validate too.
    const after = await freshToken();
    expect(after).not.toBe(token);
    expect(await admin.validateToken(after)).toBeDefined();
  });
});
