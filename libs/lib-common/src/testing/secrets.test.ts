import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { FakeKubeClient } from './fake.js';
import { createSecret, fakeSecretText, setSecretData } from './secrets.js';

describe('createSecret', () => {
  it('creates the Secret from string data, with labels only when given', async () => {
    const fake = new FakeKubeClient();
    await createSecret(fake, 'ns', 'plain', { a: 'x' });
    await createSecret(fake, 'ns', 'labelled', { b: 'y' }, { app: 'test' });
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 'plain' })).toMatchObject({
      metadata: { name: 'plain', namespace: 'ns' },
      stringData: { a: 'x' },
    });
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 'plain' })?.metadata.labels).toBeUndefined();
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 'labelled' })?.metadata.labels).toEqual({
      app: 'test',
    });
  });
});

describe('fakeSecretText', () => {
  it('reads data decoded, else stringData, and nothing for a missing Secret or key', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Secret, {
      metadata: { name: 'encoded', namespace: 'ns' },
      data: { a: Buffer.from('x\n').toString('base64') },
    });
    await createSecret(fake, 'ns', 'plain', { b: 'y' });
    expect(fakeSecretText(fake, { namespace: 'ns', name: 'encoded' }, 'a')).toBe('x\n');
    expect(fakeSecretText(fake, { namespace: 'ns', name: 'plain' }, 'b')).toBe('y');
    expect(fakeSecretText(fake, { namespace: 'ns', name: 'plain' }, 'a')).toBeUndefined();
    expect(fakeSecretText(fake, { namespace: 'ns', name: 'none' }, 'a')).toBeUndefined();
  });
});

describe('setSecretData', () => {
  it('merges the values base64-encoded into data, keeping the other keys', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Kinds.Secret, { metadata: { name: 's', namespace: 'ns' }, data: { a: 'eA==', b: 'eQ==' } });
    await setSecretData(fake, 'ns', 's', { b: 'new' });
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 's' })?.['data']).toEqual({
      a: 'eA==',
      b: 'bmV3',
    });
  });
});
