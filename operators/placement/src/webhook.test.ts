import { describe, expect, it } from 'vitest';
import { defaultPlacementApi } from './webhook.js';

describe('PlacementAPI defaulting (what upstream webhook stores)', () => {
  it('fills containerImage and apiTimeout 0 → 60, and stores quantities canonically', () => {
    const obj = { spec: { apiTimeout: 0, resources: { limits: { cpu: '2000m', memory: '1024Mi' } } } };
    defaultPlacementApi({ apiImage: 'placement:default' })(obj);
    expect(obj.spec).toEqual({
      apiTimeout: 60,
      containerImage: 'placement:default',
      resources: { limits: { cpu: '2', memory: '1Gi' } },
    });
  });

  it('keeps what the user wrote', () => {
    const obj = { spec: { containerImage: 'mine:1', apiTimeout: 90 } };
    defaultPlacementApi({ apiImage: 'placement:default' })(obj);
    expect(obj.spec).toEqual({ containerImage: 'mine:1', apiTimeout: 90 });
  });
});
