import { describe, expect, it } from 'vitest';
import { inWaves, waveOf } from './waves.js';

interface Item {
  kind: string;
  name: string;
}
const item = (kind: string, name: string): Item => ({ kind, name });
const tick = () => new Promise((r) => setTimeout(r, 5));

/** Counts writes in flight around `body` and remembers the most at once. */
function inFlightMeter() {
  let now = 0;
  let most = 0;
  return {
    async around<R>(body: () => Promise<R>): Promise<R> {
      now += 1;
      most = Math.max(most, now);
      try {
        return await body();
      } finally {
        now -= 1;
      }
    },
    most: () => most,
  };
}

describe('inWaves', () => {
  it('writes namespaces and CRDs first, then roles and what pods mount, then bindings with workloads and webhooks', () => {
    expect(['Namespace', 'CustomResourceDefinition'].map(waveOf)).toEqual([0, 0]);
    expect(['ServiceAccount', 'ClusterRole', 'Role', 'ConfigMap', 'Secret', 'Service'].map(waveOf)).toEqual([
      1, 1, 1, 1, 1, 1,
    ]);
    expect(
      [
        'RoleBinding',
        'ClusterRoleBinding',
        'DaemonSet',
        'Deployment',
        'Job',
        'MutatingWebhookConfiguration',
      ].map(waveOf),
    ).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it('runs one wave at a time, its writes concurrently, and returns results in the items order', async () => {
    const items = [
      item('DaemonSet', 'ds'),
      item('ConfigMap', 'cm'),
      item('CustomResourceDefinition', 'crd'),
      item('ClusterRoleBinding', 'crb'),
      item('ServiceAccount', 'sa'),
      item('Deployment', 'deploy'),
    ];
    const log: string[] = [];
    const meter = inFlightMeter();
    const results = await inWaves(
      items,
      (i) => i.kind,
      (i) =>
        meter.around(async () => {
          log.push(`start ${i.name}`);
          await tick();
          log.push(`end ${i.name}`);
          return i.name.toUpperCase();
        }),
    );
    expect(results).toEqual(['DS', 'CM', 'CRD', 'CRB', 'SA', 'DEPLOY']);
    expect(log).toEqual([
      'start crd',
      'end crd',
      'start cm',
      'start sa',
      'end cm',
      'end sa',
      'start ds',
      'start crb',
      'start deploy',
      'end ds',
      'end crb',
      'end deploy',
    ]);
    expect(meter.most()).toBe(3);
  });

  it('gives a Namespace or CRD a wave of its own only when another item lives in it or is of its kind', async () => {
    interface Obj {
      kind: string;
      metadata: { name: string; namespace?: string };
      spec?: { names: { kind: string } };
    }
    const crd = (name: string, kind: string): Obj => ({
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { names: { kind } },
    });
    const items: Obj[] = [
      { kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'ops' } },
      crd('shipped.example.org', 'Shipped'),
      crd('used.example.org', 'Used'),
      { kind: 'Used', metadata: { name: 'u', namespace: 'ops' } },
      { kind: 'Namespace', metadata: { name: 'ops' } },
      { kind: 'Namespace', metadata: { name: 'empty' } },
      { kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ops' } },
    ];
    const started: string[][] = [];
    let wave: string[] = [];
    const write = async (o: Obj) => {
      wave.push(o.metadata.name);
      await tick();
      if (wave.length) started.push(wave);
      wave = [];
    };
    await inWaves(items, (o) => o.kind, write, { objectOf: (o) => o });
    expect(started.map((w) => w.sort())).toEqual([
      ['ops', 'used.example.org'],
      ['cm', 'empty', 'shipped.example.org', 'u'],
      ['ds'],
    ]);
    // Without objectOf, kinds alone decide: both CRDs and both Namespaces first.
    started.length = 0;
    await inWaves(items, (o) => o.kind, write);
    expect(started[0]?.sort()).toEqual(['empty', 'ops', 'shipped.example.org', 'used.example.org']);
  });

  it('keeps at most `concurrency` writes in flight', async () => {
    const items = Array.from({ length: 10 }, (_, i) => item('ConfigMap', `cm${i}`));
    const meter = inFlightMeter();
    await inWaves(
      items,
      (i) => i.kind,
      () => meter.around(tick),
      { concurrency: 3 },
    );
    expect(meter.most()).toBe(3);
  });

  it('on failure finishes the wave, starts no later wave, and throws the first failure in the items order', async () => {
    const items = [
      item('Secret', 'a'),
      item('ConfigMap', 'b'),
      item('Service', 'c'),
      item('Deployment', 'd'),
    ];
    const written: string[] = [];
    const failure = inWaves(
      items,
      (i) => i.kind,
      async (i) => {
        // b fails after c: still b's error is the one thrown
        await new Promise((r) => setTimeout(r, i.name === 'b' ? 20 : 5));
        if (i.name === 'b' || i.name === 'c') throw new Error(`${i.name} refused`);
        written.push(i.name);
      },
    );
    await expect(failure).rejects.toThrow('b refused');
    expect(written).toEqual(['a']);
  });
});
