import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLock } from './lock.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-env-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('acquireLock', () => {
  it('is exclusive until released', async () => {
    const path = join(dir, 'a.lock');
    const first = await acquireLock(path);
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid));
    const order: string[] = [];
    const second = acquireLock(path, { pollMs: 10 }).then((lock) => {
      order.push('second acquired');
      return lock;
    });
    await new Promise((r) => setTimeout(r, 100));
    order.push('first released');
    first.release();
    (await second).release();
    expect(order).toEqual(['first released', 'second acquired']);
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose owner has died', async () => {
    const path = join(dir, 'b.lock');
    const dead = spawnSync('true').pid ?? 999_999; // a pid that has exited
    writeFileSync(path, String(dead));
    const lock = await acquireLock(path, { timeoutMs: 2000 });
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid));
    lock.release();
  });

  it('reports who holds it and times out when asked to', async () => {
    const path = join(dir, 'c.lock');
    writeFileSync(path, '1'); // pid 1 is always alive
    let holder = 0;
    await expect(
      acquireLock(path, { timeoutMs: 200, pollMs: 20, onWait: (pid) => (holder = pid) }),
    ).rejects.toThrow(/timed out/);
    expect(holder).toBe(1);
  });
});
