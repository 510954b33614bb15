import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SELF_SIGN_CONFIGURATION,
  fillSelfSignConfigurationDefaults,
  validateSelfSignConfiguration,
} from './self-sign-configuration.js';

const conf = (caRotate: string, caOverlap: string, certRotate: string, certOverlap: string) => ({
  caRotateInterval: caRotate,
  caOverlapInterval: caOverlap,
  certRotateInterval: certRotate,
  certOverlapInterval: certOverlap,
});
const P = 'failed to validate selfSignConfiguration';

describe('validateSelfSignConfiguration', () => {
  it.each([
    ['absent', undefined],
    ['ordered', conf('2h', '1h', '1h', '30m')],
    ['equal values', conf('1h', '1h', '1h', '1h')],
    ['mixed units', conf('200h20m2s', '24h', '100h', '1.5h')],
  ])('accepts %s', (_n, c) => {
    expect(validateSelfSignConfiguration(c)).toEqual([]);
  });

  it('reports every missing field, and stops there', () => {
    expect(validateSelfSignConfiguration({ caRotateInterval: '1h', certOverlapInterval: 'bad' })).toEqual([
      `${P}: caOverlapInterval is missing`,
      `${P}: certRotateInterval is missing`,
    ]);
  });

  it('reports every unparsable field', () => {
    expect(validateSelfSignConfiguration(conf('1x', '1h', 'foo', '0'))).toEqual([
      `${P}: error parsing caRotateInterval: time: invalid duration "1x"`,
      `${P}: error parsing certRotateInterval: time: invalid duration "foo"`,
    ]);
  });

  it('reports zero durations before the ordering', () => {
    expect(validateSelfSignConfiguration(conf('0s', '1h', '0', '2h'))).toEqual([
      `${P}: caRotateInterval duration has to be > 0`,
      `${P}: certRotateInterval duration has to be > 0`,
    ]);
  });

  it('reports each ordering problem in Go duration notation', () => {
    expect(validateSelfSignConfiguration(conf('1h', '2h', '90m', '2h'))).toEqual([
      `${P}: caOverlapInterval(2h0m0s) has to be <= caRotateInterval(1h0m0s)`,
      `${P}: certRotateInterval(1h30m0s) has to be <= caRotateInterval(1h0m0s)`,
      `${P}: certOverlapInterval(2h0m0s) has to be <= certRotateInterval(1h30m0s)`,
    ]);
  });
});

describe('fillSelfSignConfigurationDefaults', () => {
  const previous = conf('2h', '1h', '1h', '1h');

  it('gives the defaults when absent', () => {
    expect(fillSelfSignConfigurationDefaults(undefined, undefined)).toEqual({
      caRotateInterval: '48h0m0s',
      caOverlapInterval: '24h0m0s',
      certRotateInterval: '24h0m0s',
      certOverlapInterval: '12h0m0s',
    });
  });

  it('replaces an incomplete one whole (no merge)', () => {
    expect(fillSelfSignConfigurationDefaults(conf('', '3h', '4h', '5h'), undefined)).toEqual(
      DEFAULT_SELF_SIGN_CONFIGURATION,
    );
  });

  it('takes the previous complete one', () => {
    expect(fillSelfSignConfigurationDefaults(conf('', '', '', ''), previous)).toEqual(previous);
  });

  it('gives the defaults when the previous one is incomplete too', () => {
    expect(fillSelfSignConfigurationDefaults(undefined, { caRotateInterval: '2h' })).toEqual(
      DEFAULT_SELF_SIGN_CONFIGURATION,
    );
  });

  it('keeps a complete one', () => {
    const c = conf('3h', '1h', '2h', '1h');
    expect(fillSelfSignConfigurationDefaults(c, previous)).toEqual(c);
  });
});
