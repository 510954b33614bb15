import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareVersions, goEnv, parseGoVersion } from './go.js';

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

describe('goEnv', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("runs the compiler at GOGC=400 with the machine's toolchain, statically, outside any go.work", () => {
    vi.stubEnv('GOGC', undefined);
    expect(goEnv()).toMatchObject({ GOGC: '400', GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOWORK: 'off' });
  });

  it("keeps the caller's GOGC, and lets a build override any variable", () => {
    vi.stubEnv('GOGC', 'off');
    expect(goEnv({ GOFLAGS: '-buildvcs=false' })).toMatchObject({ GOGC: 'off', GOFLAGS: '-buildvcs=false' });
  });
});
