import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGES, IMAGE_ENV_VARS, imagesFromEnv } from './images.js';
import { cnaoLogLevel, readOperatorEnv } from './operator-env.js';

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

  it("maps upstream's CNAO_LOG_LEVEL to our levels, and refuses what it cannot map", () => {
    expect(['-1', '0', '1', '2', '-3', ' 0 '].map((v) => cnaoLogLevel({ CNAO_LOG_LEVEL: v }))).toEqual([
      'debug',
      'info',
      'warn',
      'error',
      'trace',
      'info',
    ]);
    expect(cnaoLogLevel({})).toBeUndefined();
    expect(cnaoLogLevel({ CNAO_LOG_LEVEL: '' })).toBeUndefined();
    expect(() => cnaoLogLevel({ CNAO_LOG_LEVEL: 'debug' })).toThrow(
      /CNAO_LOG_LEVEL must be an integer.*"debug"/,
    );
    expect(() => cnaoLogLevel({ CNAO_LOG_LEVEL: '3' })).toThrow(/CNAO_LOG_LEVEL/);
  });
});
