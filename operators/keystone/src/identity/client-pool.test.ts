import { describe, expect, it } from 'vitest';
import { IdentityClientPool } from './client-pool.js';

const opts = {
  authUrl: 'http://keystone-internal.openstack.svc:5000',
  username: 'admin',
  password: 'pw',
  userDomainName: 'Default',
  projectName: 'admin',
  projectDomainName: 'Default',
};

describe('IdentityClientPool', () => {
  it('reuses one client per distinct set of options', () => {
    const pool = new IdentityClientPool();
    expect(pool.get(opts)).toBe(pool.get({ ...opts }));
    expect(pool.get({ ...opts, password: 'other' })).not.toBe(pool.get(opts));
    expect(pool.size).toBe(2);
  });

  it('calls the override URL instead of the in-cluster endpoint when one is set', () => {
    const pool = new IdentityClientPool(undefined, 'http://127.0.0.1:35357');
    const client = pool.get(opts) as unknown as { baseUrl: URL; opts: { authUrl: string } };
    // Both the API base and the URL tokens are requested from.
    expect(client.baseUrl.origin).toBe('http://127.0.0.1:35357');
    expect(client.opts.authUrl).toBe('http://127.0.0.1:35357');
  });
});
