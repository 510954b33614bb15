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

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { names: { kind: string } };
  roleRef?: { kind: string; name: string };
}
const obj = (kind: string, name: string, namespace?: string): Obj => ({
  kind,
  metadata: namespace ? { name, namespace } : { name },
});

/** Writes that end when the test says: which are in flight, and ending them one by one. */
function gatedWrites() {
  const open = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  const started: string[] = [];
  const settled = () => new Promise<void>((r) => setImmediate(r));
  return {
    write: (o: Obj) =>
      new Promise<string>((resolve, reject) => {
        const name = o.metadata.name;
        started.push(name);
        open.set(name, { resolve: () => resolve(name.toUpperCase()), reject });
      }),
    inFlight: () => [...open.keys()].sort(),
    started: () => [...started],
    settled,
    async finish(...names: string[]) {
      for (const name of names) {
        open.get(name)?.resolve();
        open.delete(name);
        await settled();
      }
    },
    async fail(name: string) {
      open.get(name)?.reject(new Error(`${name} refused`));
      open.delete(name);
      await settled();
    },
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

  it('with the objects, starts each write once what it needs is written, not the whole earlier wave', async () => {
    const w = gatedWrites();
    const items: Obj[] = [
      obj('DaemonSet', 'ds', 'ops'),
      obj('NetworkPolicy', 'np', 'ops'),
      obj('ServiceAccount', 'sa', 'ops'),
      obj('ConfigMap', 'cm', 'ops'),
      obj('ClusterRole', 'cr'),
      { ...obj('ClusterRoleBinding', 'crb'), roleRef: { kind: 'ClusterRole', name: 'cr' } },
      obj('Service', 'svc', 'ops'),
      obj('MutatingWebhookConfiguration', 'wh'),
      obj('ConfigMap', 'elsewhere', 'other'),
    ];
    const all = inWaves(items, (o) => o.kind, w.write, { objectOf: (o) => o });
    await w.settled();
    expect(w.inFlight()).toEqual(['cm', 'cr', 'elsewhere', 'np', 'sa', 'svc']);
    await w.finish('cr');
    expect(w.inFlight()).toEqual(['cm', 'crb', 'elsewhere', 'np', 'sa', 'svc']);
    await w.finish('sa');
    // The DaemonSet also mounts what its namespace's ConfigMaps hold.
    expect(w.inFlight()).not.toContain('ds');
    await w.finish('cm');
    // Not held by the NetworkPolicy, the Service or another namespace's ConfigMap.
    expect(w.inFlight()).toEqual(['crb', 'ds', 'elsewhere', 'np', 'svc']);
    await w.finish('np', 'svc', 'elsewhere');
    // A webhook configuration routes to Services: it waits for the whole earlier wave.
    expect(w.inFlight()).toEqual(['crb', 'ds', 'wh']);
    await w.finish('crb', 'ds', 'wh');
    await expect(all).resolves.toEqual(items.map((o) => o.metadata.name.toUpperCase()));
  });

  it('gives a Namespace or CRD a wave of its own only when another item lives in it or is of its kind', async () => {
    const crd = (name: string, kind: string): Obj => ({
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { names: { kind } },
    });
    const items: Obj[] = [
      obj('DaemonSet', 'ds', 'ops'),
      crd('shipped.example.org', 'Shipped'),
      crd('used.example.org', 'Used'),
      obj('Used', 'u', 'ops'),
      obj('Namespace', 'ops'),
      obj('Namespace', 'empty'),
      obj('ConfigMap', 'cm', 'ops'),
    ];
    const w = gatedWrites();
    const all = inWaves(items, (o) => o.kind, w.write, { objectOf: (o) => o });
    await w.settled();
    expect(w.inFlight()).toEqual(['empty', 'ops', 'shipped.example.org', 'used.example.org']);
    await w.finish('ops');
    expect(w.inFlight()).toEqual(['cm', 'empty', 'shipped.example.org', 'used.example.org']);
    await w.finish('used.example.org');
    expect(w.inFlight()).toContain('u');
    await w.finish('cm');
    expect(w.inFlight()).toEqual(['ds', 'empty', 'shipped.example.org', 'u']);
    await w.finish('ds', 'empty', 'shipped.example.org', 'u');
    await all;
    // Without objectOf, kinds alone decide: both CRDs and both Namespaces first, then whole waves.
    const v = gatedWrites();
    const again = inWaves(items, (o) => o.kind, v.write);
    await v.settled();
    expect(v.inFlight()).toEqual(['empty', 'ops', 'shipped.example.org', 'used.example.org']);
    await v.finish('empty', 'ops', 'shipped.example.org');
    expect(v.inFlight()).toEqual(['used.example.org']);
    await v.finish('used.example.org');
    expect(v.inFlight()).toEqual(['cm', 'u']);
    await v.finish('cm', 'u');
    expect(v.inFlight()).toEqual(['ds']);
    await v.finish('ds');
    await again;
  });

  it('with the objects, on failure starts nothing more, lets the writes in flight finish, and throws the first failure', async () => {
    const w = gatedWrites();
    const items: Obj[] = [
      obj('DaemonSet', 'ds', 'ops'),
      obj('ServiceAccount', 'sa', 'ops'),
      obj('NetworkPolicy', 'np', 'ops'),
      obj('ClusterRole', 'cr'),
      { ...obj('ClusterRoleBinding', 'crb'), roleRef: { kind: 'ClusterRole', name: 'cr' } },
    ];
    const all = inWaves(items, (o) => o.kind, w.write, { objectOf: (o) => o });
    const outcome = all.then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    await w.settled();
    await w.fail('sa');
    await w.finish('cr');
    // The binding's role is written, but a write failed: nothing new starts.
    expect(w.inFlight()).toEqual(['np']);
    await w.finish('np');
    expect(await outcome).toBe('sa refused');
    expect(w.started()).toEqual(['sa', 'np', 'cr']);
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
  it('fails on a write that throws before returning its promise, as on one that rejects', async () => {
    const written: string[] = [];
    const failure = inWaves(
      [item('ConfigMap', 'a'), item('Secret', 'b'), item('Deployment', 'c')],
      (i) => i.kind,
      (i) => {
        if (i.name === 'b') throw new Error('b refused');
        return tick().then(() => {
          written.push(i.name);
        });
      },
    );
    await expect(failure).rejects.toThrow('b refused');
    // Thrown once the write in flight had finished.
    expect(written).toEqual(['a']);
  });
});
