import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { FakeKubeClient } from './fake.js';
import { createSecret } from './secrets.js';

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
