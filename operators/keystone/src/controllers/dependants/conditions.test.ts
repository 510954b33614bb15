import type { KindRef, KubeObject, ObjectRef } from '@stackops/lib-common/client';
import type { CacheReader } from '@stackops/lib-common/runtime';
import { base64 } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { readSecretKeyFromCache } from './conditions.js';

function cacheWith(secret: KubeObject | undefined): CacheReader {
  return {
    get: <T extends KubeObject>(_kind: KindRef, _ref: ObjectRef | string) => secret as T | undefined,
    list: <T extends KubeObject>() => [] as T[],
  };
}

const secret = (data: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'osp-secret', namespace: 'ns' },
    data,
  }) as KubeObject;

describe('readSecretKeyFromCache', () => {
  it('drops one trailing newline, as every operator decodes passwords (`echo pw | base64`)', () => {
    const cache = cacheWith(
      secret({ AdminPassword: base64('pw\n'), Other: base64('two\n\n'), Plain: base64('pw') }),
    );
    expect(readSecretKeyFromCache(cache, 'ns', 'osp-secret', 'AdminPassword')).toEqual({
      state: 'found',
      value: 'pw',
    });
    expect(readSecretKeyFromCache(cache, 'ns', 'osp-secret', 'Plain')).toEqual({
      state: 'found',
      value: 'pw',
    });
    expect(readSecretKeyFromCache(cache, 'ns', 'osp-secret', 'Other')).toEqual({
      state: 'found',
      value: 'two\n',
    });
  });

  it('tells a missing Secret from a missing key, naming the key but never a value', () => {
    expect(readSecretKeyFromCache(cacheWith(undefined), 'ns', 'osp-secret', 'AdminPassword')).toEqual({
      state: 'no-secret',
    });
    const read = readSecretKeyFromCache(
      cacheWith(secret({ A: base64('secret-value') })),
      'ns',
      'osp-secret',
      'B',
    );
    expect(read).toEqual({ state: 'no-key', detail: 'Secret osp-secret has no key B' });
  });
});
