import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { base64 } from '../testing/conditions.js';
import { FakeKubeClient } from '../testing/fake.js';
import {
  getOrCreateSecret,
  MissingSecretKeyError,
  requireSecretKeys,
  type SecretObject,
  secretValue,
} from './secrets.js';

const secret: SecretObject = {
  metadata: { name: 'osp-secret', namespace: 'openstack' },
  data: {
    AdminPassword: base64('12345678\n'),
    Plain: base64('x'),
    Crlf: base64('y\r\n'),
    Two: base64('z\n\n'),
  },
  stringData: { Pending: 'p' },
};

describe('secretValue', () => {
  it.each([
    ['AdminPassword', '12345678'],
    ['Plain', 'x'],
    ['Crlf', 'y'],
    ['Two', 'z\n'],
    ['Pending', 'p'],
    ['Absent', undefined],
  ])('%s → %j', (key, value) => {
    expect(secretValue(secret, key)).toBe(value);
  });
});

describe('requireSecretKeys', () => {
  it('returns the values in order', () => {
    expect(requireSecretKeys(secret, ['Plain', 'AdminPassword'])).toEqual({
      Plain: 'x',
      AdminPassword: '12345678',
    });
  });

  it('names the first missing key and the Secret, never a value', () => {
    const call = () => requireSecretKeys(secret, ['AdminPassword', 'PlacementPassword', 'Other']);
    expect(call).toThrow(MissingSecretKeyError);
    expect(call).toThrow('missing key PlacementPassword in Secret openstack/osp-secret');
    try {
      call();
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('12345678');
      expect(err).toMatchObject({ key: 'PlacementPassword', secret: 'openstack/osp-secret' });
    }
  });
});

describe('getOrCreateSecret', () => {
  const desired: SecretObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'keystone-db-secret', namespace: 'openstack' },
    stringData: { DatabasePassword: 'generated' },
  };

  it('an uncached (unlabelled) Secret is read, never created again: no write', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Secret, { ...desired, stringData: { DatabasePassword: 'older' } });
    const got = await getOrCreateSecret(fake, desired, undefined);
    expect(secretValue(got, 'DatabasePassword')).toBe('older');
    expect(fake.writes()).toBe(0);
    expect(fake.calls.map((c) => c.verb)).toEqual(['get']);
  });

  it('a cached one costs no request; an absent one is created once', async () => {
    const fake = new FakeKubeClient();
    expect(await getOrCreateSecret(fake, desired, desired)).toBe(desired);
    expect(fake.calls).toEqual([]);
    const created = await getOrCreateSecret(fake, desired, undefined);
    expect(secretValue(created, 'DatabasePassword')).toBe('generated');
    expect(fake.writes()).toBe(1);
  });
});
