import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, IMAGE_ENV_VARS, imagesFromEnv } from './images.js';
import { readOperatorEnv } from './operator-env.js';

describe('operator environment', () => {
  it('takes each image from its variable, else the default', () => {
    const images = imagesFromEnv({ MULTUS_IMAGE: 'r/multus:1', NMSTATE_HANDLER_IMAGE: '' });
    expect(images.multus).toBe('r/multus:1');
    expect(images.nmstateHandler).toBe(DEFAULT_IMAGES.nmstateHandler);
    expect(Object.keys(IMAGE_ENV_VARS).sort()).toEqual(Object.keys(DEFAULT_IMAGES).sort());
  });

  it('requires OPERATOR_NAMESPACE and defaults the operand namespace and version', () => {
    expect(() => readOperatorEnv({}, '1.0')).toThrow(/OPERATOR_NAMESPACE/);
    expect(readOperatorEnv({ OPERATOR_NAMESPACE: 'ops' }, '1.0')).toMatchObject({
      operatorNamespace: 'ops',
      operandNamespace: 'ops',
      operatorVersion: '1.0',
    });
    expect(
      readOperatorEnv(
        { OPERATOR_NAMESPACE: 'ops', OPERAND_NAMESPACE: 'cnao', OPERATOR_VERSION: '2.0' },
        '1.0',
      ),
    ).toMatchObject({
      operandNamespace: 'cnao',
      operatorVersion: '2.0',
    });
  });
});
