import type { KindRef, KubeObject } from '@stackops/lib-common/client';
import { useTestNamespace } from '@stackops/lib-common/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { installCrds } from './support/harness.js';

/** The API server itself refuses bad input, with a message naming the field. */
describe('schema and CEL rules', () => {
  const t = useTestNamespace(
    { beforeAll, afterAll, beforeEach, afterEach },
    { prefix: 'ks-validate', crds: installCrds, fieldManager: 'keystone-tests', scope: 'file' },
  );

  let n = 0;
  async function rejection(kind: KindRef, spec: Record<string, unknown>): Promise<string> {
    const obj = {
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: kind.kind,
      metadata: { name: `bad-${n++}`, namespace: t.ns.name },
      spec,
    } as KubeObject;
    try {
      await t.admin.create(kind, obj);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    throw new Error(`accepted: ${JSON.stringify(spec)}`);
  }
  const api = (spec: Record<string, unknown>) =>
    rejection(KeystoneKinds.KeystoneAPI, { secret: 'osp-secret', ...spec });

  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['secret is required', { secret: undefined }, /spec.secret: Required value/],
    [
      'replicas above 32',
      { replicas: 33 },
      /spec.replicas: Invalid value: 33: spec.replicas in body should be less than or equal to 32/,
    ],
    ['negative replicas', { replicas: -1 }, /spec.replicas.*greater than or equal to 0/],
    [
      'fewer than 3 fernet keys',
      { fernetMaxActiveKeys: 2 },
      /spec.fernetMaxActiveKeys.*greater than or equal to 3/,
    ],
    [
      'rotation below one day',
      { fernetRotationDays: 0 },
      /spec.fernetRotationDays.*greater than or equal to 1/,
    ],
    ['apiTimeout below 10', { apiTimeout: 5 }, /spec.apiTimeout.*greater than or equal to 10/],
    // Bounded input: nothing a tenant writes can grow the shared operator without limit.
    [
      '100000 fernet keys',
      { fernetMaxActiveKeys: 100000 },
      /spec.fernetMaxActiveKeys.*less than or equal to 100/,
    ],
    [
      'a customServiceConfig larger than a config Secret holds',
      { customServiceConfig: 'x'.repeat(256 * 1024 + 1) },
      /spec.customServiceConfig: Too long: may not be (longer|more) than 262144/,
    ],
    [
      '17 defaultConfigOverwrite files',
      { defaultConfigOverwrite: Object.fromEntries([...Array(17).keys()].map((i) => [`f${i}.yaml`, 'x'])) },
      /spec.defaultConfigOverwrite: Too many: 17: must have at most 16 items/,
    ],
    [
      'a 5000-character region',
      { region: 'r'.repeat(5000) },
      /spec.region: Too long: may not be (longer|more) than 4096/,
    ],
    [
      '300 nodeSelector labels',
      { nodeSelector: Object.fromEntries([...Array(300).keys()].map((i) => [`k${i}`, 'v'])) },
      /spec.nodeSelector: Too many: 300: must have at most 256 items/,
    ],
    [
      'trustFlushArgs outside the pattern',
      { trustFlushArgs: '--x; rm -rf /' },
      /spec.trustFlushArgs.*should match/,
    ],
    [
      'override key other than internal/public',
      { override: { service: { admin: {} } } },
      /spec.override.service keys must be 'internal' or 'public'/,
    ],
    [
      'external mode without public endpointURL',
      { externalKeystoneAPI: true, override: { service: { internal: { endpointURL: 'http://i' } } } },
      /external Keystone API requires endpointURL to be set for public endpoint/,
    ],
    [
      'external mode without internal endpointURL',
      { externalKeystoneAPI: true, override: { service: { public: { endpointURL: 'http://p' } } } },
      /external Keystone API requires endpointURL to be set for internal endpoint/,
    ],
    [
      'external endpointURL without a scheme',
      {
        externalKeystoneAPI: true,
        override: {
          service: { public: { endpointURL: 'keystone.example' }, internal: { endpointURL: 'http://i' } },
        },
      },
      /spec.override.service.public.endpointURL: URL must include a scheme/,
    ],
    [
      'the same externalEndpoints endpoint twice',
      {
        externalEndpoints: [
          { endpoint: 'internal', ipAddressPool: 'a' },
          { endpoint: 'internal', ipAddressPool: 'b' },
        ],
      },
      /spec.externalEndpoints: each endpoint may be listed once/,
    ],
    [
      'an externalEndpoints endpoint other than internal/public',
      { externalEndpoints: [{ endpoint: 'admin', ipAddressPool: 'a' }] },
      /spec.externalEndpoints\[0\].endpoint: Unsupported value: "admin"/,
    ],
    [
      'an empty ipAddressPool',
      { externalEndpoints: [{ endpoint: 'public', ipAddressPool: '' }] },
      /ipAddressPool.*at least 1/,
    ],
    [
      'rabbitMqClusterName differing from notificationsBus.cluster',
      { rabbitMqClusterName: 'a', notificationsBus: { cluster: 'b' } },
      /spec.rabbitMqClusterName \(deprecated\) and spec.notificationsBus.cluster must not differ/,
    ],
    [
      'a trustFlushSchedule that is no cron expression',
      { trustFlushSchedule: 'every hour' },
      /spec.trustFlushSchedule: Invalid value: .*spec.trustFlushSchedule must be a cron expression/,
    ],
    [
      'a trustFlushSchedule with four fields',
      { trustFlushSchedule: '1 * * *' },
      /spec.trustFlushSchedule must be a cron expression/,
    ],
    [
      'a defaultConfigOverwrite key ..',
      { defaultConfigOverwrite: { '..': 'x' } },
      /spec.defaultConfigOverwrite: Invalid value: .*keys must be file names.*not \. and not starting with \.\./,
    ],
    [
      'a passwordSelectors.database that is no Secret key',
      { passwordSelectors: { database: '..' } },
      /spec.passwordSelectors.database: Invalid value: "\.\.": .*should match/,
    ],
    [
      'a defaultConfigOverwrite key that is no file name',
      { defaultConfigOverwrite: { '../etc/passwd': 'x' } },
      /spec.defaultConfigOverwrite keys must be file names/,
    ],
    [
      'a databaseInstance that is no Service name',
      { databaseInstance: 'Open_Stack' },
      /spec.databaseInstance.*should match/,
    ],
    [
      'a databaseAccount with SQL in it',
      { databaseAccount: "k'; DROP" },
      /spec.databaseAccount.*should match/,
    ],
    [
      'a notificationsBus without its cluster',
      { notificationsBus: { user: 'keystone' } },
      /spec.notificationsBus.cluster: Required value/,
    ],
    [
      'a containerImage with whitespace',
      { containerImage: 'quay.io/x y' },
      /spec.containerImage.*should match/,
    ],
    [
      'a network attachment that is no name',
      { networkAttachments: ['Storage Net'] },
      /spec.networkAttachments\[0\].*should match/,
    ],
  ];

  for (const [what, spec, message] of cases) {
    it(`KeystoneAPI: rejects ${what}`, async () => {
      expect(await api(spec)).toMatch(message);
    });
  }

  it('KeystoneAPI: accepts upstream manifests setting rabbitMqClusterName to its zero value', async () => {
    const created = await t.admin.create(KeystoneKinds.KeystoneAPI, {
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: { name: 'zero-values', namespace: t.ns.name },
      spec: { secret: 'osp-secret', rabbitMqClusterName: '', federatedRealmConfig: '' },
    } as KubeObject);
    expect(created.metadata.name).toBe('zero-values');
  });

  it('KeystoneEndpoint: rejects an endpoint key other than admin/internal/public', async () => {
    expect(
      await rejection(KeystoneKinds.KeystoneEndpoint, {
        serviceName: 'placement',
        endpoints: { private: 'http://x' },
      }),
    ).toMatch(/spec.endpoints keys must be 'admin', 'internal' or 'public'/);
  });

  it('KeystoneService: requires its fields', async () => {
    expect(await rejection(KeystoneKinds.KeystoneService, { serviceType: 'placement' })).toMatch(
      /spec.serviceName: Required value/,
    );
  });
});
