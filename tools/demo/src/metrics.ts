import { Kinds, type KubeClient } from '@stackops/lib-common/client';
import { run } from './exec.js';
import { RELEASE, RELEASE_NAMESPACE } from './umbrella.js';

/** The ServiceAccount the demo scrapes with, as Prometheus would with its own. */
export const SCRAPER = 'demo-metrics-scraper';

/**
 * The charts serve /metrics over HTTPS to callers the API server authorises (TokenReview +
 * SubjectAccessReview): a ServiceAccount bound to each operator's `<fullname>-metrics-reader`
 * ClusterRole may read them. Returns a token of that ServiceAccount.
 */
export async function metricsScraperToken(
  client: KubeClient,
  kubectl: string,
  kubeconfig: string,
): Promise<string> {
  await client.create(Kinds.ServiceAccount, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: SCRAPER, namespace: RELEASE_NAMESPACE },
  });
  const { items } = await client.list(Kinds.ClusterRole, {
    labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
  });
  for (const role of items.filter((r) => r.metadata.name?.endsWith('-metrics-reader'))) {
    await client.create(Kinds.ClusterRoleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${role.metadata.name}-${SCRAPER}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: SCRAPER, namespace: RELEASE_NAMESPACE }],
    });
  }
  return (
    await run(kubectl, ['--kubeconfig', kubeconfig, 'create', 'token', SCRAPER, '-n', RELEASE_NAMESPACE])
  ).trim();
}

/**
 * GET https://<pod IP>:8080/metrics from inside the node's network with the token. The operator's
 * certificate is self-signed (no cert dir given by the chart), so it is not verified here.
 */
export async function scrapeInNode(
  netnsPath: string,
  podIP: string,
  token: string,
): Promise<{ status: number; series: number }> {
  const script =
    "process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';" +
    "fetch(process.argv[1], { headers: { Authorization: 'Bearer ' + process.argv[2] } })" +
    '.then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))' +
    '.catch((e) => { process.stderr.write(String(e)); process.exit(1); })';
  const out = await run('nsenter', [
    `--net=${netnsPath}`,
    '--',
    process.execPath,
    '--no-warnings',
    '-e',
    script,
    `https://${podIP}:8080/metrics`,
    token,
  ]);
  const { status, body } = JSON.parse(out) as { status: number; body: string };
  return { status, series: body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length };
}
