import { httpRequest, type TlsClient } from './http.js';
import { fakeNodeManifest, fakeNodeName, readyNodeNames } from './nodes.js';

/** Each probe answers "ready yet?" and treats connection errors as "not yet". */
async function ok(url: string, tls?: TlsClient, expectBody?: RegExp): Promise<boolean> {
  try {
    const res = await httpRequest(url, { tls, timeoutMs: 2000 });
    return res.status === 200 && (expectBody === undefined || expectBody.test(res.body));
  } catch {
    return false;
  }
}

export const etcdHealthy = (port: number) =>
  ok(`http://127.0.0.1:${port}/health`, undefined, /"health":\s*"true"/);
export const apiserverReady = (server: string, tls: TlsClient) => ok(`${server}/readyz`, tls, /^ok$/);
/** KCM and scheduler serve /healthz on their own self-signed certificate; anonymous access is allowed there. */
export const componentHealthy = (port: number) => ok(`https://127.0.0.1:${port}/healthz`, undefined, /^ok$/);
export const defaultServiceAccountExists = (server: string, tls: TlsClient) =>
  ok(`${server}/api/v1/namespaces/default/serviceaccounts/default`, tls);

export async function nodesReady(server: string, tls: TlsClient, count: number): Promise<boolean> {
  try {
    const res = await httpRequest(`${server}/api/v1/nodes?labelSelector=type%3Dkwok`, {
      tls,
      timeoutMs: 2000,
    });
    if (res.status !== 200) return false;
    const ready = readyNodeNames(JSON.parse(res.body));
    return Array.from({ length: count }, (_, i) => fakeNodeName(i)).every((name) => ready.has(name));
  } catch {
    return false;
  }
}

/** Creates the fake nodes; ones that already exist (restart with kept data) are left as they are. */
export async function createFakeNodes(server: string, tls: TlsClient, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await httpRequest(`${server}/api/v1/nodes`, {
      method: 'POST',
      body: fakeNodeManifest(fakeNodeName(i)),
      tls,
      timeoutMs: 10_000,
    });
    if (res.status !== 201 && res.status !== 409) {
      throw new Error(`creating node ${fakeNodeName(i)} failed: HTTP ${res.status} ${res.body}`);
    }
  }
}
