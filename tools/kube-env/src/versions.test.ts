import { describe, expect, it } from 'vitest';
import { cacheKey, recipeRevision, versions } from './versions.js';

describe('cacheKey', () => {
  it('names every pinned version and the recipe revision', () => {
    const key = cacheKey();
    expect(key).toBe(
      `k8s${versions.kubernetes.slice(1)}-etcd${versions.etcd.slice(1)}-kwok${versions.kwok.slice(1)}-helm${versions.helm.slice(1)}-crane${versions.crane.slice(1)}-coredns${versions.coredns.slice(1)}-r${recipeRevision}`,
    );
    expect(key).toMatch(/^[a-z0-9.-]+$/);
  });
});
