import { describe, expect, it } from 'vitest';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import { keystoneApiChangedForDependants } from './watches.js';

describe('keystoneApiChangedForDependants', () => {
  const api = (status: KeystoneAPI['status'], extra: Partial<KeystoneAPI['metadata']> = {}): KeystoneAPI =>
    ({
      kind: 'KeystoneAPI',
      metadata: { name: 'keystone', namespace: 'ns', ...extra },
      spec: { secret: 'osp-secret' },
      status,
    }) as KeystoneAPI;
  const ready = (s: string) => [{ type: 'Ready', status: s, lastTransitionTime: '2026-01-01T00:00:00Z' }];

  it('passes readiness, endpoint and deletion changes, not other status writes', () => {
    const base = api({ conditions: ready('True'), apiEndpoints: { internal: 'http://a' }, readyCount: 1 });
    const update = (obj: KeystoneAPI) => keystoneApiChangedForDependants({ type: 'update', old: base, obj });
    expect(
      update(api({ conditions: ready('True'), apiEndpoints: { internal: 'http://a' }, readyCount: 2 })),
    ).toBe(false);
    expect(update(api({ conditions: ready('False'), apiEndpoints: { internal: 'http://a' } }))).toBe(true);
    expect(update(api({ conditions: ready('True'), apiEndpoints: { internal: 'http://b' } }))).toBe(true);
    expect(
      update(
        api(
          { conditions: ready('True'), apiEndpoints: { internal: 'http://a' }, readyCount: 1 },
          { deletionTimestamp: 'now' },
        ),
      ),
    ).toBe(true);
    expect(keystoneApiChangedForDependants({ type: 'add', obj: base })).toBe(true);
  });

  it('passes a change of the Secrets the dependants watch by name (admin Secret, CA bundle)', () => {
    const base = api({ conditions: ready('True') });
    const withSpec = (spec: Partial<KeystoneAPI['spec']>) => ({ ...base, spec: { ...base.spec, ...spec } });
    const update = (obj: KeystoneAPI) => keystoneApiChangedForDependants({ type: 'update', old: base, obj });
    expect(update(withSpec({ secret: 'other-secret' }))).toBe(true);
    expect(update(withSpec({ tls: { caBundleSecretName: 'combined-ca-bundle' } }))).toBe(true);
    expect(update(withSpec({}))).toBe(false);
  });
});
