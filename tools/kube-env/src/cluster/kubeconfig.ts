import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { TlsClient } from './http.js';

const b64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');

/** An admin kubeconfig with the certificates embedded, so it stays valid wherever it is copied. */
function kubeconfigYaml(clusterName: string, server: string, tls: TlsClient, tlsServerName?: string): string {
  const name = `kube-env-${clusterName}`;
  const cluster = {
    server,
    'certificate-authority-data': b64(tls.ca),
    ...(tlsServerName ? { 'tls-server-name': tlsServerName } : {}),
  };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [
      {
        name: `${name}-admin`,
        user: { 'client-certificate-data': b64(tls.cert), 'client-key-data': b64(tls.key) },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/**
 * `tlsServerName`: the name to check the server's certificate against when `server` is an address
 * the certificate does not list (a further real node reaches the API server at the first node's IP).
 */
export function writeKubeconfig(
  path: string,
  clusterName: string,
  server: string,
  tls: TlsClient,
  tlsServerName?: string,
): void {
  writeFileSync(path, kubeconfigYaml(clusterName, server, tls, tlsServerName), { mode: 0o600 });
}
