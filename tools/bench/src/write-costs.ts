import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isConflict,
  type KindRef,
  Kinds,
  type KubeObject,
  type RestKubeClient,
} from '@stackops/lib-common/client';
import { formatTime } from '@stackops/lib-common/conditions';
import { installCrds } from '@stackops/lib-common/testing';
import { asBaselineObject } from './operator-bodies.js';
import { sample } from './proc.js';
import { createNamespace, freshCluster, type RunOptions, until } from './runner.js';
import { startSubject } from './subject.js';
import { KeystoneAPIKind, staged, workloads } from './workloads.js';

/** One kind of request, sent `count` times over the namespaces, 16 in flight. */
interface WriteKind {
  name: string;
  count: number;
  send(client: RestKubeClient, i: number, ns: string): Promise<unknown>;
}

const NAMESPACES = 200;
const IN_FLIGHT = 16;
const config = 'x'.repeat(2048);

/** 16 conditions as a KeystoneAPI carries them, each write changing every one. */
const conditions = (i: number) =>
  Array.from({ length: 16 }, (_, c) => ({
    type: `Condition${c}`,
    status: i % 2 ? 'True' : 'Unknown',
    reason: i % 2 ? 'Ready' : 'Init',
    message: `Condition${c} ${i % 2 ? 'complete' : 'not started'} (write ${i})`,
    lastTransitionTime: formatTime(new Date(Date.UTC(2026, 0, 1) + i * 1000)),
  }));

/** A Secret of 2 KiB, as the baselines build their objects. */
const secret = (name: string, ns: string) =>
  staged(Kinds.Secret, ns, name, { stringData: { config } }).object;

const patchKeystone = (c: RestKubeClient, ns: string, patch: object, subresource?: 'status') =>
  c.patch(
    KeystoneAPIKind,
    { namespace: ns, name: 'keystone' },
    patch,
    'merge',
    subresource ? { subresource } : {},
  );

/** The bootstrap Job and the Deployment our keystone operator wrote for one instance. */
interface KeystoneBodies {
  namespace: string;
  job: KubeObject;
  deployment: KubeObject;
}

const BODIES_NS = 'bodies';

/** Runs our keystone operator for one instance in its own namespace and reads what it wrote. */
async function keystoneBodies(
  client: RestKubeClient,
  kubeconfig: string,
  outDir: string,
): Promise<KeystoneBodies> {
  const w = workloads.keystone;
  await w.setup?.(client);
  const ns = await createNamespace(client, BODIES_NS);
  await w.prepare(client, ns);
  const subject = await startSubject(w.subject(), {
    kubeconfig,
    logFile: join(outDir, 'write-costs-keystone-operator.log'),
  });
  try {
    await w.apply(client, ns);
    await until('the keystone instance to be done', () => w.done(client, ns), 180_000);
  } finally {
    await subject.stop();
  }
  const read = async (kind: KindRef, name: string) => {
    const found = await client.get<KubeObject>(kind, { namespace: ns, name });
    if (!found) throw new Error(`${kind.kind} ${ns}/${name} not written by the operator`);
    return found;
  };
  return {
    namespace: ns,
    job: await read(Kinds.Job, 'keystone-bootstrap'),
    deployment: await read(Kinds.Deployment, 'keystone'),
  };
}

/**
 * `body` as a client creates it in `ns` under `name`; suspended (a Job) or at 0 replicas (a
 * Deployment) so that the figure is the write's, not the controllers' and kwok's work after it.
 */
function idleCopy(body: KubeObject, fromNs: string, ns: string, name: string): KubeObject {
  const copy = asBaselineObject(body, fromNs, ns) as KubeObject & { spec: Record<string, unknown> };
  const spec = copy.kind === 'Job' ? { ...copy.spec, suspend: true } : { ...copy.spec, replicas: 0 };
  return { ...copy, metadata: { ...copy.metadata, name }, spec } as KubeObject;
}

/** Each namespace's KeystoneAPI as last written: an update (PUT) sends its resourceVersion. */
function statusUpdates() {
  const latest = new Map<string, KubeObject>();
  return async (c: RestKubeClient, i: number, ns: string): Promise<unknown> => {
    for (;;) {
      const cur =
        latest.get(ns) ?? (await c.get<KubeObject>(KeystoneAPIKind, { namespace: ns, name: 'keystone' }));
      if (!cur) throw new Error(`KeystoneAPI ${ns}/keystone is gone`);
      try {
        const body = { ...cur, status: { conditions: conditions(i), observedGeneration: 1 } };
        const written = await c.replace(KeystoneAPIKind, body, { subresource: 'status' });
        latest.set(ns, written);
        return written;
      } catch (err) {
        // Another request to the namespace went first: read it again, as an operator would.
        if (!isConflict(err)) throw err;
        latest.delete(ns);
      }
    }
  };
}

/**
 * What each kind of write an operator makes costs the control plane here: the API server's and
 * etcd's CPU (from /proc) over `count` requests, per request. Read it beside the 200-instance
 * figures: a write's price is paid on the same two cores as everything else. The Job and
 * Deployment are our operator's own (its bootstrap Job and API Deployment), so creating and
 * server-side applying them compare like for like.
 */
const writeKinds = (bodies: KeystoneBodies): WriteKind[] => [
  {
    name: 'create Secret (2 KiB)',
    count: 1000,
    send: (c, i, ns) => c.create(Kinds.Secret, secret(`p${i}`, ns)),
  },
  {
    name: 'server-side apply, new Secret (2 KiB)',
    count: 1000,
    send: (c, i, ns) => c.apply(Kinds.Secret, secret(`a${i}`, ns), { force: true }),
  },
  {
    name: 'merge patch Secret',
    count: 1000,
    send: (c, i, ns) =>
      c.patch(Kinds.Secret, { namespace: ns, name: `p${i % 1000}` }, { stringData: { n: `${i}` } }, 'merge'),
  },
  {
    name: 'create Event',
    count: 1000,
    send: (c, i, ns) =>
      c.create(
        Kinds.Event,
        staged(Kinds.Event, ns, `e${i}`, {
          involvedObject: { apiVersion: 'v1', kind: 'Secret', name: `p${i}`, namespace: ns },
          reason: 'SuccessfulCreate',
          message: 'Created Job keystone-db-sync',
          type: 'Normal',
          source: { component: 'stackops-bench' },
          firstTimestamp: formatTime(new Date()),
          lastTimestamp: formatTime(new Date()),
          count: 1,
        }).object,
      ),
  },
  {
    name: 'create Service (ClusterIP)',
    count: 400,
    send: (c, i, ns) =>
      c.create(
        Kinds.Service,
        staged(Kinds.Service, ns, `s${i}`, { spec: { selector: { app: 'x' }, ports: [{ port: 5000 }] } })
          .object,
      ),
  },
  {
    name: 'merge patch KeystoneAPI metadata (a label)',
    count: 1000,
    send: (c, i, ns) => patchKeystone(c, ns, { metadata: { labels: { n: `${i}` } } }),
  },
  {
    name: 'merge patch KeystoneAPI status (16 conditions)',
    count: 1000,
    send: (c, i, ns) =>
      patchKeystone(c, ns, { status: { conditions: conditions(i), observedGeneration: 1 } }, 'status'),
  },
  {
    name: 'update KeystoneAPI status (PUT, 16 conditions)',
    count: 1000,
    send: statusUpdates(),
  },
  {
    name: 'server-side apply KeystoneAPI status (16 cond.)',
    count: 1000,
    send: (c, i, ns) =>
      c.apply(
        KeystoneAPIKind,
        {
          apiVersion: 'keystone.openstack.org/v1beta1',
          kind: 'KeystoneAPI',
          metadata: { name: 'keystone', namespace: ns },
          status: { conditions: conditions(i), observedGeneration: 1 },
        } as KubeObject,
        { force: true, subresource: 'status' },
      ),
  },
  {
    name: 'create Job (our bootstrap Job, suspended)',
    count: 400,
    send: (c, i, ns) => c.create(Kinds.Job, idleCopy(bodies.job, bodies.namespace, ns, `j${i}`)),
  },
  {
    name: 'server-side apply, new Job (the same)',
    count: 400,
    send: (c, i, ns) =>
      c.apply(Kinds.Job, idleCopy(bodies.job, bodies.namespace, ns, `ja${i}`), { force: true }),
  },
  {
    name: 'create Deployment (ours, 0 replicas)',
    count: 400,
    send: (c, i, ns) =>
      c.create(Kinds.Deployment, idleCopy(bodies.deployment, bodies.namespace, ns, `d${i}`)),
  },
  {
    name: 'server-side apply, new Deployment (the same)',
    count: 400,
    send: (c, i, ns) =>
      c.apply(Kinds.Deployment, idleCopy(bodies.deployment, bodies.namespace, ns, `da${i}`), { force: true }),
  },
];

export async function runWriteCosts(
  opts: Pick<RunOptions, 'cluster' | 'outDir' | 'progress'>,
): Promise<string[]> {
  const { client, handle, kubeconfig } = await freshCluster(opts.cluster, opts.outDir, opts.progress);
  try {
    await installCrds(client, workloads.keystone.crds());
    // Before the namespaces below: our operator would reconcile their KeystoneAPIs too.
    const bodies = await keystoneBodies(client, kubeconfig, opts.outDir);
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `costs-${i}`);
    for (const ns of namespaces) {
      await createNamespace(client, ns);
      await workloads.keystone.apply(client, ns);
    }
    const pids = [handle.state.components['kube-apiserver']?.pid, handle.state.components.etcd?.pid];
    const cpu = () => pids.reduce<number>((sum, pid) => sum + (pid ? sample(pid).cpu : 0), 0);
    const lines = [
      `API server + etcd CPU per request (${NAMESPACES} namespaces, ${IN_FLIGHT} in flight, audit log on as in every scenario):`,
    ];
    for (const kind of writeKinds(bodies)) {
      await sleep(3000); // what the previous kind left (watch fan-out, compaction) settles first
      const before = cpu();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let i = next++; i < kind.count; i = next++)
            await kind.send(client, i, namespaces[i % NAMESPACES] ?? '');
        }),
      );
      await sleep(1000); // the watch cache's and etcd's share of the last writes
      const used = cpu() - before;
      const line = `  ${kind.name.padEnd(48)} ${((used / kind.count) * 1000).toFixed(2).padStart(6)} ms  (${kind.count} in ${((performance.now() - started) / 1000).toFixed(1)} s)`;
      opts.progress(line);
      lines.push(line);
    }
    return lines;
  } finally {
    client.close();
  }
}
