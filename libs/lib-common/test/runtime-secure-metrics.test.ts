import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Kinds } from '../src/client/kinds.js';
import type { Manager } from '../src/runtime/manager.js';
import { loadTestKubeConfig } from '../src/testing/kubeconfig.js';
import { startTestManager } from '../src/testing/manager.js';
import { useTestNamespace } from '../src/testing/namespace.js';
import { eventually } from '../src/testing/wait.js';

const kc = loadTestKubeConfig();
const env = useTestNamespace({ beforeAll, afterAll, beforeEach, afterEach }, { prefix: 'secure-metrics' });
let managers: Manager[];

const ClusterRoleKind = Kinds.ClusterRole;
const ClusterRoleBindingKind = Kinds.ClusterRoleBinding;

beforeEach(async () => {
  managers = [];
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.stop()));
});

/** GET over HTTPS, trusting whatever certificate the server shows (it is self-signed); returns it too. */
function httpsGet(
  port: number,
  path: string,
  token?: string,
): Promise<{ status: number; body: string; cert: X509Certificate }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        rejectUnauthorized: false,
        ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
      },
      (res) => {
        const raw = (res.socket as unknown as { getPeerCertificate(): { raw: Buffer } }).getPeerCertificate()
          .raw;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, cert: new X509Certificate(raw) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function tokenOf(serviceAccount: string): Promise<string> {
  await env.admin.create(Kinds.ServiceAccount, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: serviceAccount, namespace: env.ns.name },
  });
  const { stdout } = await promisify(execFile)('kubectl', [
    `--kubeconfig=${process.env['KUBECONFIG']}`,
    'create',
    'token',
    serviceAccount,
    '-n',
    env.ns.name,
  ]);
  return stdout.trim();
}

describe('secure metrics', () => {
  it('serves /metrics over HTTPS with a self-signed certificate, only to callers the API server authorizes', async () => {
    const m = await startTestManager({
      name: 'secure-operator',
      namespaces: [env.ns.name],
      metricsPort: 0,
      metricsSecure: true,
    });
    managers.push(m);
    const port = m.address('metrics')?.port ?? 0;

    const reader = await tokenOf('scraper');
    const stranger = await tokenOf('stranger');
    const role = `${env.ns.name}-metrics-reader`;
    await env.admin.create(ClusterRoleKind, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    } as never);
    await env.admin.create(ClusterRoleBindingKind, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: env.ns.name }],
    } as never);
    try {
      const anonymous = await httpsGet(port, '/metrics');
      expect(anonymous.status).toBe(401);
      expect(anonymous.cert.subjectAltName).toMatch(/IP Address:127\.0\.0\.1/);
      expect(anonymous.cert.verify(anonymous.cert.publicKey)).toBe(true);
      expect((await httpsGet(port, '/metrics', 'not-a-token')).status).toBe(401);
      expect((await httpsGet(port, '/metrics', stranger)).status).toBe(403);
      const allowed = await eventually(async () => {
        const res = await httpsGet(port, '/metrics', reader);
        expect(res.status).toBe(200);
        return res;
      });
      expect(allowed.body).toMatch(/^process_resident_memory_bytes /m);
      // Plain HTTP on the same port is not served.
      await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
    } finally {
      await env.admin.delete(ClusterRoleBindingKind, { name: role });
      await env.admin.delete(ClusterRoleKind, { name: role });
    }
  });
});

/** A TCP relay to the API server that can be cut and restored, to make it unreachable on demand. */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('/readyz', () => {
  it('fails while the API server cannot be reached, and recovers when it can', async () => {
    const server = new URL(kc.getCurrentCluster()?.server ?? '');
    const relay = new Relay({ host: server.hostname, port: Number(server.port) });
    await relay.open();
    const relayed = loadTestKubeConfig();
    const cluster = relayed.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster');
    (cluster as { server: string }).server = `https://${server.hostname}:${relay.port}`;
    const m = await startTestManager({
      name: 'readyz-operator',
      kubeConfig: relayed,
      namespaces: [env.ns.name],
      probePort: 0,
      informer: { backoff: { initialMs: 100, maxMs: 500, factor: 2, jitter: 0 } },
    });
    m.cache.informer(Kinds.ConfigMap);
    managers.push(m);
    await m.cache.waitForSync();
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${m.address('probes')?.port}/readyz`);
      return { status: res.status, body: await res.text() };
    };
    await eventually(async () => expect(await readyz()).toEqual({ status: 200, body: 'ok\n' }));
    try {
      await relay.cut();
      await eventually(async () => {
        const res = await readyz();
        expect(res.status).toBe(500);
        expect(res.body).toMatch(/API server unreachable/);
      });
      // Liveness is not readiness: the process is fine, restarting it would not help.
      expect((await fetch(`http://127.0.0.1:${m.address('probes')?.port}/healthz`)).status).toBe(200);
    } finally {
      await relay.open();
    }
    await eventually(async () => expect(await readyz()).toEqual({ status: 200, body: 'ok\n' }), {
      timeoutMs: 20_000,
    });
    await relay.cut();
  });

  it('fails once the caches are stopped', async () => {
    const m = await startTestManager({ name: 'cache-operator', namespaces: [env.ns.name], probePort: 0 });
    m.cache.informer(Kinds.ConfigMap);
    managers.push(m);
    await m.cache.waitForSync();
    expect(await m.ready()).toBeUndefined();
    await m.cache.informer(Kinds.ConfigMap).stop();
    expect(await m.ready()).toMatch(/informers not synced: ConfigMap/);
  });
});

describe('leader election metrics', () => {
  it('a standby replica exports leader_election_master_status 0, the leader 1', async () => {
    const election = {
      leaseName: `${env.ns.name}-lease`,
      namespace: env.ns.name,
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
    };
    const a = await startTestManager({
      name: 'le-operator',
      namespaces: [env.ns.name],
      leaderElection: election,
    });
    managers.push(a);
    await eventually(async () => expect(a.isLeader()).toBe(true));
    const b = await startTestManager({
      name: 'le-operator',
      namespaces: [env.ns.name],
      leaderElection: election,
    });
    managers.push(b);
    const status = async (m: Manager) =>
      /leader_election_master_status\{name="le-operator"\} (\d)/.exec(await m.registry.metrics())?.[1];
    expect(await status(a)).toBe('1');
    expect(b.isLeader()).toBe(false);
    expect(await status(b)).toBe('0');
  });
});
