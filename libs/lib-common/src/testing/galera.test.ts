import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import { isGaleraService } from '../database/mariadb.js';
import { ExternalKinds } from '../external/kinds.js';
import { FakeKubeClient } from './fake.js';
import { galeraDatabase } from './galera.js';

describe('galeraDatabase', () => {
  it('creates the Galera CR and the Service the database step recognises as its own', async () => {
    const fake = new FakeKubeClient();
    const { galera, service } = await galeraDatabase(fake, 'ns', 'db');
    expect(galera.metadata).toMatchObject({ name: 'db', namespace: 'ns' });
    expect(fake.peek(ExternalKinds.Galera, { namespace: 'ns', name: 'db' })).toBeDefined();
    expect(fake.peek(Kinds.Service, { namespace: 'ns', name: 'db' })).toBeDefined();
    expect(isGaleraService(service, 'db')).toBe(true);
    expect(isGaleraService(service, 'openstack')).toBe(false);
  });
});
