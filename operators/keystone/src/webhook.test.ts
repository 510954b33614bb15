import { describe, expect, it } from 'vitest';
import { defaultKeystoneApi } from './webhook.js';

describe('KeystoneAPI defaulting (what upstream webhook stores)', () => {
  it("fills an empty containerImage and stores upstream's sample quantities canonically", () => {
    const obj = {
      spec: { secret: 'osp-secret', resources: { requests: { cpu: '1.0', memory: '500Mi' } } },
    };
    defaultKeystoneApi({ apiImage: 'keystone:default' })(obj);
    expect(obj.spec).toEqual({
      secret: 'osp-secret',
      containerImage: 'keystone:default',
      resources: { requests: { cpu: '1', memory: '500Mi' } },
    });
  });

  it('keeps a containerImage the user wrote', () => {
    const obj = { spec: { containerImage: 'mine:1' } };
    defaultKeystoneApi({ apiImage: 'keystone:default' })(obj);
    expect(obj.spec.containerImage).toBe('mine:1');
  });
});
