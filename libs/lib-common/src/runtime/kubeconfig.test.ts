import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { base64 } from '../testing/conditions.js';
import { loadKubeConfig } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const kubeconfig = (user: string, cluster = '      certificate-authority-data: ' + base64('CA')) =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: other',
    '    cluster:',
    '      server: https://10.0.0.1:6443',
    '  - name: c',
    '    cluster:',
    '      server: https://127.0.0.1:6443',
    cluster,
    'users:',
    '  - name: u',
    '    user:',
    user,
    'contexts:',
    '  - name: ctx',
    '    context: { cluster: c, user: u }',
    'current-context: ctx',
    '',
  ].join('\n');

async function httpsOptions(path: string | undefined, env: NodeJS.ProcessEnv = {}, saDir?: string) {
  const kc = await loadKubeConfig(path, env, saDir);
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return { kc, opts };
}

describe('loadKubeConfig', () => {
  it("reads the current context's cluster and client certificate (as kube-env writes it)", async () => {
    const path = write(
      'certs',
      kubeconfig(`      client-certificate-data: ${base64('CERT')}\n      client-key-data: ${base64('KEY')}`),
    );
    const { kc, opts } = await httpsOptions(path);
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.authProvider).toBeUndefined();
    expect(String(opts.ca)).toBe('CA');
    expect(String(opts.cert)).toBe('CERT');
    expect(String(opts.key)).toBe('KEY');
    expect(opts.headers).toBeUndefined();
  });

  it('reads a kubeconfig written as JSON, and a YAML flow mapping that is not JSON', async () => {
    const doc = {
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [{ name: 'u', user: { token: 'json' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    };
    const json = await httpsOptions(write('json', ` ${JSON.stringify(doc, null, 2)}\n`));
    expect(json.kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(json.opts.headers).toEqual({ Authorization: 'Bearer json' });
    const flow = await httpsOptions(
      write(
        'flow',
        '{clusters: [{name: c, cluster: {server: "https://127.0.0.1:7443"}}], users: [{name: u, user: {token: flow}}],\n' +
          ' contexts: [{name: x, context: {cluster: c, user: u}}], current-context: x}\n',
      ),
    );
    expect(flow.kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:7443');
    expect(flow.opts.headers).toEqual({ Authorization: 'Bearer flow' });
  });

  it('resolves file paths against the kubeconfig folder, and sends a static token', async () => {
    write('ca.crt', 'CA-FILE');
    const path = write(
      'files',
      kubeconfig(
        '      token: abc',
        '      certificate-authority: ca.crt\n      tls-server-name: api.internal',
      ),
    );
    const { opts } = await httpsOptions(path);
    expect(String(opts.ca)).toBe('CA-FILE');
    expect(opts.servername).toBe('api.internal');
    expect(opts.headers).toEqual({ Authorization: 'Bearer abc' });
  });

  it('reads a token file on demand, so a rotated token is used (the client asks per request)', async () => {
    const token = write('token', 't1\n');
    const path = write('tokenfile', kubeconfig(`      tokenFile: ${token}`));
    const { kc, opts } = await httpsOptions(path);
    expect(kc.getCurrentUser()?.authProvider).toBeDefined();
    expect(opts.headers).toEqual({ Authorization: 'Bearer t1' });
  });

  it('in a pod: the ServiceAccount token and CA, the API server from the environment', async () => {
    const sa = mkdtempSync(join(dir, 'sa-'));
    writeFileSync(join(sa, 'token'), 'sa-token');
    writeFileSync(join(sa, 'ca.crt'), 'SA-CA');
    const { kc, opts } = await httpsOptions(
      undefined,
      { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', HOME: dir },
      sa,
    );
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(String(opts.ca)).toBe('SA-CA');
    expect(opts.headers).toEqual({ Authorization: 'Bearer sa-token' });
  });

  it('hands exec plugins to @kubernetes/client-node', async () => {
    const path = write(
      'exec',
      kubeconfig(
        '      exec:\n        apiVersion: client.authentication.k8s.io/v1\n        command: /bin/true',
      ),
    );
    const kc = await loadKubeConfig(path, {});
    expect(kc.constructor.name).toBe('KubeConfig');
    expect(kc.getCurrentUser()?.exec).toBeDefined();
  });

  it('fails on a file that cannot be read, naming it', async () => {
    await expect(loadKubeConfig('/nonexistent/kubeconfig', {})).rejects.toThrow(
      /ENOENT.*\/nonexistent\/kubeconfig/,
    );
  });
});
