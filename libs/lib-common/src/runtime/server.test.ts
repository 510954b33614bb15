import { describe, expect, it } from 'vitest';
import { parseEndpoint } from './server.js';

describe('parseEndpoint', () => {
  // Binding every interface is proven on the real node (kubelet probes the pod IP); a unit test
  // here must not listen beyond loopback.
  it('an empty host means every interface, as in controller-runtime (charts pass `:8081`)', () => {
    expect(parseEndpoint(':8081')).toEqual({ host: '', port: 8081 });
  });

  it('keeps an explicit host, unwraps IPv6 brackets, and uses the default host for a bare port', () => {
    expect(parseEndpoint('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseEndpoint('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseEndpoint('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
  });

  it('`0` and empty disable the endpoint; a bad port is refused', () => {
    expect(parseEndpoint('0')).toBeUndefined();
    expect(parseEndpoint('')).toBeUndefined();
    expect(() => parseEndpoint(':99999')).toThrow(/invalid address/);
  });
});
