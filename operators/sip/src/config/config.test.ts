import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, imagesFromEnv } from './images.js';
import { readOperatorConfig } from './operator-config.js';

describe('operator config', () => {
  it('takes each service image from its RELATED_IMAGE_* variable, else the default', () => {
    expect(imagesFromEnv({})).toEqual({
      loadBalancer: 'haproxy:2.3.2',
      jumpHost: 'quay.io/airshipit/jump-host:latest',
      auth: 'ghcr.io/dexidp/dex:v2.41.1',
    });
    expect(
      imagesFromEnv({
        RELATED_IMAGE_HAPROXY: 'r/haproxy:1',
        RELATED_IMAGE_DEX: '',
        RELATED_IMAGE_JUMP_HOST: 'r/j:2',
      }),
    ).toEqual({ loadBalancer: 'r/haproxy:1', jumpHost: 'r/j:2', auth: DEFAULT_IMAGES.auth.image });
  });

  it('reads the images from the environment it is given', () => {
    expect(readOperatorConfig({ RELATED_IMAGE_JUMP_HOST: 'j:1' }).images.jumpHost).toBe('j:1');
  });
});
