import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// V8's %GetOptimizationStatus bits.
const OPTIMIZED = 1 << 4;
const BASELINE = 1 << 15;

/** The optimisation status of a hot function in a fresh node, with or without the limit set first. */
function statusOfHotFunction(limit: boolean): number {
  const tiering = fileURLToPath(new URL('./tiering.ts', import.meta.url));
  const script = `
    import { baselineCompilersOnly } from ${JSON.stringify(tiering)};
    if (${limit}) baselineCompilersOnly();
    function hot(a) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * 2; return s; }
    const arr = Array.from({ length: 1000 }, (_, i) => i);
    let x = 0;
    for (let i = 0; i < 100000; i++) x += hot(arr);
    process.stdout.write(String(%GetOptimizationStatus(hot)));`;
  return Number(
    execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    }),
  );
}

describe('baselineCompilersOnly', () => {
  it('keeps a hot function in Sparkplug once set at run time; without it V8 optimises the function', () => {
    expect(statusOfHotFunction(false) & OPTIMIZED).toBe(OPTIMIZED);
    const limited = statusOfHotFunction(true);
    expect(limited & OPTIMIZED).toBe(0);
    expect(limited & BASELINE).toBe(BASELINE);
  });
});
