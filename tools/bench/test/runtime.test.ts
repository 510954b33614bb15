import { describe, expect, it } from 'vitest';
import { parseRuntime, underRuntime } from '../src/runtime.js';

describe('--runtime', () => {
  it('takes bun or deno at an exact version, and refuses anything else by name', () => {
    expect(parseRuntime('bun@1.4.5')).toEqual({ name: 'bun', version: '1.4.5' });
    expect(parseRuntime('deno@2.9.6')).toEqual({ name: 'deno', version: '2.9.6' });
    expect(() => parseRuntime('bun')).toThrow(/--runtime: expected bun@<x.y.z> or deno@<x.y.z>, got "bun"/);
    expect(() => parseRuntime('node@24.0.0')).toThrow(/--runtime/);
  });

  it("runs the same entry point and arguments, without node's flags", () => {
    const spec = {
      name: 'keystone-operator',
      command: [
        '/usr/bin/node',
        '--max-opt=1',
        '--max-old-space-size=112',
        '/x/main.mjs',
        '--kubeconfig={kubeconfig}',
      ],
      env: { LOG_LEVEL: 'info' },
    };
    expect(underRuntime(spec, { name: 'bun', version: '1.4.5' }, '/c/bun')).toEqual({
      name: 'keystone-operator (bun 1.4.5)',
      command: ['/c/bun', '/x/main.mjs', '--kubeconfig={kubeconfig}'],
      env: { LOG_LEVEL: 'info' },
    });
    expect(underRuntime(spec, { name: 'deno', version: '2.9.6' }, '/c/deno').command).toEqual([
      '/c/deno',
      'run',
      '--allow-all',
      '/x/main.mjs',
      '--kubeconfig={kubeconfig}',
    ]);
  });
});
