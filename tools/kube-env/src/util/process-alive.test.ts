import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAlive } from './process-alive.js';

describe('isAlive', () => {
  it('is true for a running process and false once it exited, even before it is reaped', async () => {
    expect(isAlive(process.pid)).toBe(true);
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    // SIGKILL, then check at once: the kernel keeps a zombie until Node's event loop reaps it.
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 2000;
    while (isAlive(pid) && Date.now() < deadline) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
    expect(isAlive(pid)).toBe(false);
    await new Promise((resolve) => child.once('exit', resolve));
  });

  it('is false for a pid that does not exist', () => {
    expect(isAlive(2 ** 22 + 1)).toBe(false);
  });
});
