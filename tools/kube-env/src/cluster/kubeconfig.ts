import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { TlsClient } from './http.js';

const b64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');

/** An admin kubeconfig with the certificates embedded, so it stays valid wherever it is copied. */
function kubeconfigYaml(clusterName: string, server: string, tls: TlsClient): string {
  const name = `kube-env-${clusterName}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'certificate-authority-data': b64(tls.ca) } }],
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

export function writeKubeconfig(path: string, clusterName: string, server: string, tls: TlsClient): void {
  writeFileSync(path, kubeconfigYaml(clusterName, server, tls), { mode: 0o600 });
}
