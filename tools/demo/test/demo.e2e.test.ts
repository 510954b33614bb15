import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoTargets } from '../src/targets.js';

const main = resolve(import.meta.dirname, '../dist/main.js');
/** Every resource must converge within this budget, measured from when the examples were applied. */
const BUDGET_SECONDS = 300;

/** Runs the demo; without `--exit`, interrupts it (Ctrl-C) once it says it keeps running. */
function runDemo(mode: '--exit' | 'ctrl-c'): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const args = [main, '--name', 'stackops-demo-e2e', '--timeout', String(BUDGET_SECONDS)];
    if (mode === '--exit') args.push('--exit');
    const child = spawn(process.execPath, args, {
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
      if (mode === 'ctrl-c' && out.includes('Press Ctrl-C') && !child.killed) child.kill('SIGINT');
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.on('exit', (code) => done({ code, out }));
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('make demo --exit', () => {
  it('converges every example within the budget, prints the summary, and leaves nothing running', async () => {
    const { code, out } = await runDemo('--exit');
    if (code !== 0) console.log(out);
    expect(code).toBe(0);
    for (const t of demoTargets) {
      const m = out.match(
        new RegExp(`${t.label.replace(/[/.]/g, '\\$&')}: ${t.doneCondition} after ([\\d.]+)s`),
      );
      expect(m, `${t.label} should report ${t.doneCondition}`).not.toBeNull();
      expect(Number(m![1])).toBeLessThan(BUDGET_SECONDS);
    }
    expect(out).toMatch(/resource.*conditions.*owns.*took/);
    // The catalogue is read from the real Keystone: keystone's own endpoints (the bootstrap Job's
    // command) and placement's, registered by the operators through KeystoneService/KeystoneEndpoint.
    for (const [service, iface, url] of [
      ['keystone', 'internal', 'http://keystone-internal.openstack.svc:5000'],
      ['keystone', 'public', 'http://keystone-public.openstack.svc:5000'],
      ['placement', 'internal', 'http://placement-internal.openstack.svc:8778'],
      ['placement', 'public', 'http://placement-public.openstack.svc:8778'],
    ] as const) {
      expect(out).toMatch(
        new RegExp(`${service} .*│ ${iface} .*│ regionOne .*│ ${url.replace(/[.:/]/g, '\\$&')}`),
      );
    }
    const pids = (out.match(/stopped pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(9); // 4 operators + etcd, apiserver, KCM, scheduler, kwok
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive)).toEqual([]);
  });
});

describe('make demo, stopped with Ctrl-C', () => {
  it('keeps running after the summary, then SIGINT stops everything it started', async () => {
    const { code, out } = await runDemo('ctrl-c');
    if (code !== 130) console.log(out);
    expect(out).toContain('The cluster keeps running');
    expect(out).toContain('stopping everything the demo started');
    expect(code).toBe(130);
    const pids = (out.match(/running pids: ([\d ]+)/)?.[1] ?? '').trim().split(/\s+/).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(9);
    await new Promise((r) => setTimeout(r, 1000));
    expect(pids.filter(alive)).toEqual([]);
  });
});
