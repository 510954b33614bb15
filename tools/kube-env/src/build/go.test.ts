import { describe, expect, it } from 'vitest';
import { compareVersions, parseGoVersion } from './go.js';

describe('go version checks', () => {
  it('parses `go version` output', () => {
    expect(parseGoVersion('go version go1.26.8 linux/amd64')).toBe('1.26.8');
    expect(parseGoVersion('go version go1.26 linux/amd64')).toBe('1.26');
    expect(parseGoVersion('go version devel +abc')).toBeUndefined();
  });

  it('compares versions numerically, a missing patch counting as 0', () => {
    expect(compareVersions('1.26.8', '1.26.0')).toBe(1);
    expect(compareVersions('1.26', '1.26.0')).toBe(0);
    expect(compareVersions('1.9.0', '1.26.0')).toBe(-1);
    expect(compareVersions('1.25.9', '1.26.0')).toBe(-1);
  });
});
