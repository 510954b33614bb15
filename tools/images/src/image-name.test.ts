import { describe, expect, it } from 'vitest';
import { formatImageName, parseImageName } from './image-name.js';

describe('parseImageName', () => {
  it('splits a chart reference into registry, repository and tag', () => {
    const name = parseImageName('ghcr.io/stackops/keystone-operator:0.1.0');
    expect(name).toEqual({ registry: 'ghcr.io', repository: 'stackops/keystone-operator', tag: '0.1.0' });
    expect(formatImageName(name)).toBe('ghcr.io/stackops/keystone-operator:0.1.0');
    expect(parseImageName('127.0.0.1:5000/a/b:v1').registry).toBe('127.0.0.1:5000');
    expect(parseImageName('localhost/mariadb:10.11').repository).toBe('mariadb');
  });

  it('refuses names without a registry or a tag, and malformed parts', () => {
    expect(() => parseImageName('stackops/keystone-operator:0.1.0')).toThrow(/registry host/);
    expect(() => parseImageName('keystone:0.1.0')).toThrow(/no registry/);
    expect(() => parseImageName('ghcr.io/stackops/keystone-operator')).toThrow(/no tag/);
    expect(() => parseImageName('ghcr.io/Stackops/x:1')).toThrow(/repository/);
    expect(() => parseImageName('ghcr.io/stackops/x:-1')).toThrow(/tag/);
  });
});
