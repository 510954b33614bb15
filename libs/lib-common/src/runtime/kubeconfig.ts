import { existsSync, readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';

/**
 * What the client reads from a kubeconfig: the current cluster and user, and the TLS material and
 * headers for a request. `KubeConfig` of @kubernetes/client-node has the same three methods.
 */
type KubeConfigSource = Pick<KubeConfig, 'getCurrentCluster' | 'getCurrentUser' | 'applyToHTTPSOptions'>;

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** How long a token file's content is reused (kubelet rotates projected tokens well before expiry). */
const TOKEN_FILE_TTL_MS = 60_000;

interface Plain {
  cluster: Cluster;
  user: User;
  tokenFile?: string;
}

/**
 * A kubeconfig as the operator binary needs it, without loading @kubernetes/client-node: that
 * package pulls its whole generated API in (≈ 75 MiB of heap and code, 1.5–3.5 s of start-up on
 * this machine) for three methods. The common cases are read here — in-cluster ServiceAccount
 * (token re-read from its file), and one kubeconfig file with certificates, a token, a token file or
 * basic auth. Anything else (exec or auth-provider plugins, proxies, `as`, several files in
 * KUBECONFIG) is handed to client-node, imported only then.
 */
export async function loadKubeConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  serviceAccountDir = SERVICE_ACCOUNT,
): Promise<KubeConfigSource> {
  const file = path ?? defaultFile(env);
  const plain = file ? await fromFile(file) : fromCluster(env, serviceAccountDir);
  if (plain) return source(plain);
  // Its config module only: the package's index would put all of it into the operators' bundles.
  const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
  const kc = new KubeConfig();
  if (file && !file.includes(':')) kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}

function defaultFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env['KUBECONFIG']) return env['KUBECONFIG'];
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

function fromCluster(env: NodeJS.ProcessEnv, dir: string): Plain | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) return undefined;
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  return {
    cluster: {
      name: 'inCluster',
      server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
      caFile: join(dir, 'ca.crt'),
      skipTLSVerify: false,
    },
    // An authProvider makes the client ask for credentials on every request (the token rotates).
    user: { name: 'inClusterUser', authProvider: { name: 'tokenFile' } },
    tokenFile: join(dir, 'token'),
  };
}

type Named<T> = { name?: string } & Record<string, T | undefined>;
type Entry = Record<string, unknown>;

/** The current context's cluster and user of one file; undefined when client-node must do it. */
async function fromFile(file: string): Promise<Plain | undefined> {
  if (file.includes(':')) return undefined; // several files to merge
  const doc = ((await parseYamlOrJson(readFileSync(file, 'utf8'))) ?? {}) as {
    'current-context'?: string;
    contexts?: Named<Entry>[];
    clusters?: Named<Entry>[];
    users?: Named<Entry>[];
  };
  const find = (list: Named<Entry>[] | undefined, name: unknown, key: string) =>
    list?.find((x) => x.name === name)?.[key];
  const context = find(doc.contexts, doc['current-context'], 'context');
  if (!context) return undefined;
  const c = find(doc.clusters, context['cluster'], 'cluster');
  const u = find(doc.users, context['user'], 'user') ?? {};
  if (!c || typeof c['server'] !== 'string') return undefined;
  if (c['proxy-url'] || u['exec'] || u['auth-provider'] || u['as'] || u['as-groups']) return undefined;
  const base = dirname(file);
  const rel = (p: unknown) => (typeof p === 'string' ? (isAbsolute(p) ? p : join(base, p)) : undefined);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const caFile = rel(c['certificate-authority']);
  const certFile = rel(u['client-certificate']);
  const keyFile = rel(u['client-key']);
  const tokenFile = rel(u['tokenFile']);
  const cluster: Cluster = {
    name: String(context['cluster']),
    server: c['server'],
    skipTLSVerify: c['insecure-skip-tls-verify'] === true,
    ...(str(c['certificate-authority-data']) ? { caData: str(c['certificate-authority-data']) } : {}),
    ...(caFile ? { caFile } : {}),
    ...(str(c['tls-server-name']) ? { tlsServerName: str(c['tls-server-name']) } : {}),
  };
  const user: User = {
    name: String(context['user'] ?? ''),
    ...(str(u['client-certificate-data']) ? { certData: str(u['client-certificate-data']) } : {}),
    ...(certFile ? { certFile } : {}),
    ...(str(u['client-key-data']) ? { keyData: str(u['client-key-data']) } : {}),
    ...(keyFile ? { keyFile } : {}),
    ...(str(u['token']) ? { token: str(u['token']) } : {}),
    ...(str(u['username']) ? { username: str(u['username']) } : {}),
    ...(str(u['password']) ? { password: str(u['password']) } : {}),
    ...(tokenFile ? { authProvider: { name: 'tokenFile' } } : {}),
  };
  return { cluster, user, ...(tokenFile ? { tokenFile } : {}) };
}

/**
 * A kubeconfig's text: JSON (which is YAML too) without loading a YAML parser at all, else YAML
 * with js-yaml, not the `yaml` the renderers use: its first parse in a fresh process takes ~3 ms
 * against ~10 ms. This parse is on the way to ready (tools/bench finding 29).
 */
async function parseYamlOrJson(text: string): Promise<unknown> {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch {
      // A YAML flow mapping, not JSON: js-yaml reads it.
    }
  }
  const { load } = await import('js-yaml');
  return load(text);
}

const pem = (data: string | undefined, file: string | undefined) =>
  data ? Buffer.from(data, 'base64') : file ? readFileSync(file) : undefined;

function source({ cluster, user, tokenFile }: Plain): KubeConfigSource {
  let token: { value: string; read: number } | undefined;
  const readToken = () => {
    if (!tokenFile) return user.token;
    if (!token || Date.now() - token.read > TOKEN_FILE_TTL_MS)
      token = { value: readFileSync(tokenFile, 'utf8').trim(), read: Date.now() };
    return token.value;
  };
  return {
    getCurrentCluster: () => cluster,
    getCurrentUser: () => user,
    applyToHTTPSOptions: async (opts: RequestOptions) => {
      const ca = pem(cluster.caData, cluster.caFile);
      const cert = pem(user.certData, user.certFile);
      const key = pem(user.keyData, user.keyFile);
      if (ca) opts.ca = ca;
      if (cert) opts.cert = cert;
      if (key) opts.key = key;
      if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
      if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
      const bearer = readToken();
      if (bearer) opts.headers = { ...opts.headers, Authorization: `Bearer ${bearer}` };
      else if (user.username) opts.auth = `${user.username}:${user.password ?? ''}`;
    },
  } as KubeConfigSource;
}
