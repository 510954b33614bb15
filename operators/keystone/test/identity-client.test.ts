import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityClient } from '../src/identity/client.js';
import { IdentityError } from '../src/identity/errors.js';
import { sendJson } from '../src/identity/http.js';
import { type KeystoneServer, startKeystoneServer } from '../src/testing/index.js';

// The Identity v3 client against a real Keystone (installed from PyPI, served on 127.0.0.1).
describe('IdentityClient against a real Keystone', () => {
  let keystone: KeystoneServer;
  let admin: IdentityClient;

  beforeAll(async () => {
    keystone = await startKeystoneServer();
    admin = keystone.adminClient();
  }, 900_000);

  afterAll(async () => {
    await keystone?.stop();
  });

  it('logs in as the bootstrap admin with a system-scoped token', async () => {
    const token = await admin.currentToken();
    expect(token.scope).toBe('system');
    expect(token.user.name).toBe('admin');
    expect(token.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await admin.validateToken(token.token)).toMatchObject({
      scope: 'system',
      user: { name: 'admin' },
    });
  });

  it('creates, finds, updates and deletes a catalog service', async () => {
    const created = await admin.services.create({
      type: 'placement',
      name: 'placement',
      description: 'Placement',
    });
    expect(created).toMatchObject({
      type: 'placement',
      name: 'placement',
      description: 'Placement',
      enabled: true,
    });
    expect((await admin.services.list({ type: 'placement', name: 'placement' })).map((s) => s.id)).toEqual([
      created.id,
    ]);
    const updated = await admin.services.update(created.id, { enabled: false, description: 'Placement API' });
    expect(updated).toMatchObject({ enabled: false, description: 'Placement API' });
    expect(await admin.services.get(created.id)).toMatchObject({ enabled: false });
    expect(await admin.services.delete(created.id)).toBe(true);
    expect(await admin.services.get(created.id)).toBeUndefined();
    expect(await admin.services.delete(created.id)).toBe(false);
  });

  it('manages regions and endpoints filtered by service, interface and region', async () => {
    const service = await admin.services.create({ type: 'image', name: 'glance' });
    const region = await admin.regions.create({ id: 'regionTwo', description: 'second' });
    expect(region.id).toBe('regionTwo');
    const internal = await admin.endpoints.create({
      service_id: service.id,
      interface: 'internal',
      url: 'http://glance-internal:9292',
      region_id: 'regionTwo',
    });
    await admin.endpoints.create({
      service_id: service.id,
      interface: 'public',
      url: 'http://glance:9292',
      region_id: 'regionTwo',
    });
    const listed = await admin.endpoints.list({
      service_id: service.id,
      interface: 'internal',
      region_id: 'regionTwo',
    });
    expect(listed.map((e) => e.url)).toEqual(['http://glance-internal:9292']);
    expect(await admin.endpoints.list({ service_id: service.id, region_id: 'regionOne' })).toEqual([]);
    const moved = await admin.endpoints.update(internal.id, { url: 'http://glance-internal.ns.svc:9292' });
    expect(moved.url).toBe('http://glance-internal.ns.svc:9292');
    expect(await admin.services.delete(service.id)).toBe(true);
    // Keystone deletes a service's endpoints with it.
    expect(await admin.endpoints.get(internal.id)).toBeUndefined();
    expect(await admin.regions.delete('regionTwo')).toBe(true);
  });

  it('manages domains, projects, users, roles and role assignments', async () => {
    const domain = await admin.domains.create({ name: 'ops', description: 'operators' });
    expect((await admin.domains.list({ name: 'ops' })).map((d) => d.id)).toEqual([domain.id]);
    const project = await admin.projects.create({
      name: 'service',
      domain_id: domain.id,
      description: 'service',
    });
    const user = await admin.users.create({
      name: 'nova',
      domain_id: domain.id,
      password: 'nova-pw-1',
      default_project_id: project.id,
    });
    const role = await admin.roles.create({ name: 'ops-reader' });
    expect((await admin.roles.list({ name: 'ops-reader' })).map((r) => r.id)).toEqual([role.id]);

    const target = { projectId: project.id };
    expect(await admin.roleAssignments.check(target, user.id, role.id)).toBe(false);
    await admin.roleAssignments.grant(target, user.id, role.id);
    await admin.roleAssignments.grant(target, user.id, role.id);
    expect(await admin.roleAssignments.check(target, user.id, role.id)).toBe(true);
    const rows = await admin.roleAssignments.list({ 'user.id': user.id, 'scope.project.id': project.id });
    expect(rows.map((r) => r.role.id)).toEqual([role.id]);

    const userLogin = { username: 'nova', password: 'nova-pw-1', userDomainName: 'ops' };
    expect(await admin.passwordWorks(userLogin)).toBe(true);
    await admin.users.update(user.id, { password: 'nova-pw-2' });
    expect(await admin.passwordWorks(userLogin)).toBe(false);
    expect(await admin.passwordWorks({ ...userLogin, password: 'nova-pw-2' })).toBe(true);

    expect(await admin.roleAssignments.revoke(target, user.id, role.id)).toBe(true);
    expect(await admin.roleAssignments.revoke(target, user.id, role.id)).toBe(false);
    expect(await admin.users.delete(user.id)).toBe(true);
    expect(await admin.projects.delete(project.id)).toBe(true);
    await admin.domains.update(domain.id, { enabled: false });
    expect(await admin.domains.delete(domain.id)).toBe(true);
    expect(await admin.roles.delete(role.id)).toBe(true);
  });

  it('falls back to a project-scoped token when the user has no role on the system', async () => {
    const project = await admin.projects.create({ name: 'tenant', domain_id: 'default' });
    const user = await admin.users.create({ name: 'operator', domain_id: 'default', password: 'op-pw' });
    const [adminRole] = await admin.roles.list({ name: 'admin' });
    await admin.roleAssignments.grant({ projectId: project.id }, user.id, adminRole!.id);
    const scoped = new IdentityClient({
      authUrl: keystone.url,
      username: 'operator',
      password: 'op-pw',
      projectName: 'tenant',
    });
    const token = await scoped.currentToken();
    expect(token.scope).toBe('project');
    expect(token.project?.name).toBe('tenant');
    // Without a project to fall back to, the system-scope refusal is reported as is.
    const systemOnly = new IdentityClient({ authUrl: keystone.url, username: 'operator', password: 'op-pw' });
    const err = await systemOnly.currentToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityError);
    expect((err as IdentityError).status).toBe(401);
    await admin.users.delete(user.id);
    await admin.projects.delete(project.id);
  });

  it("reports Keystone's own error message and status", async () => {
    await admin.users.create({ name: 'dup', domain_id: 'default', password: 'x-pw' });
    const conflict = await admin.users.create({ name: 'dup', domain_id: 'default' }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(IdentityError);
    expect((conflict as IdentityError).status).toBe(409);
    expect((conflict as IdentityError).message).toMatch(/^keystone POST \/v3\/users: 409 Conflict: .*dup/);

    const badLogin = new IdentityClient({ authUrl: keystone.url, username: 'admin', password: 'wrong' });
    const unauthorized = await badLogin.services.list().catch((e: unknown) => e);
    expect((unauthorized as IdentityError).status).toBe(401);
    expect((unauthorized as IdentityError).message).toContain('POST /v3/auth/tokens');
    expect((unauthorized as IdentityError).message).not.toContain('wrong');

    const badRegion = await admin.endpoints
      .create({ service_id: 'nope', interface: 'public', url: 'http://x', region_id: 'nowhere' })
      .catch((e: unknown) => e);
    expect((badRegion as IdentityError).status).toBeGreaterThanOrEqual(400);
    expect((badRegion as IdentityError).keystoneMessage.length).toBeGreaterThan(0);
  });

  it('re-authenticates once when its token was revoked', async () => {
    const client = keystone.adminClient();
    const first = await client.currentToken();
    // Revoke the client's token through another session (DELETE /v3/auth/tokens with X-Subject-Token).
    const adminToken = await admin.currentToken();
    await sendJson({
      method: 'DELETE',
      url: new URL(`${keystone.url}/v3/auth/tokens`),
      headers: { 'x-auth-token': adminToken.token, 'x-subject-token': first.token },
    });
    expect(await admin.validateToken(first.token)).toBeUndefined();
    // The call answers (after one re-login) with what the admin session sees.
    expect(await client.services.list()).toEqual(await admin.services.list());
    const second = await client.currentToken();
    expect(second.token).not.toBe(first.token);
  });

  // The operator's workers update passwords while others log in. On sqlite a concurrent writer
  // was "database is locked", a 500 that flipped a Ready KeystoneService in a test under load;
  // the test Keystone serves one request at a time (test/support/keystone-server/serve.py).
  it('answers password updates and logins sent at once, none with a 500', async () => {
    const users = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        admin.users.create({ name: `burst-${i}`, domain_id: 'default', password: 'burst-pw' }),
      ),
    );
    const outcomes = await Promise.allSettled(
      [1, 2, 3].flatMap(() =>
        users.flatMap((u) => [
          admin.users.update(u.id, { password: 'burst-pw' }),
          admin.passwordWorks({ username: u.name, password: 'burst-pw' }),
        ]),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
    for (const u of users) expect(await admin.users.delete(u.id)).toBe(true);
  });
});
