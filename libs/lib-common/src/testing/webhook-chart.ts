import { X509Certificate } from 'node:crypto';
import { findRendered, type RenderedObject, renderedContainer } from './helm.js';

/**
 * What is wrong with a chart's defaulting webhook, or `[]`: nothing of it by default; with `webhook.enabled=true`
 * a MutatingWebhookConfiguration calling `path` on the chart's Service with failurePolicy Ignore and
 * a caBundle that signed the Secret's certificate for the Service's DNS name, and the operator
 * container serving it (WEBHOOK_BIND_ADDRESS on the Service's target port, WEBHOOK_CERT_DIR the
 * mounted Secret).
 */
export async function webhookChartProblems(
  template: (...set: string[]) => Promise<RenderedObject[]>,
  path: string,
  namespace: string,
): Promise<string[]> {
  const problems: string[] = [];
  const off = await template();
  if (findRendered(off, 'MutatingWebhookConfiguration').length > 0) problems.push('a webhook by default');
  if (renderedContainer(off).env.some((e) => e.name.startsWith('WEBHOOK_')))
    problems.push('WEBHOOK_* env by default');
  const docs = await template('webhook.enabled=true');
  const [config] = findRendered(docs, 'MutatingWebhookConfiguration');
  const hooks = (config?.['webhooks'] ?? []) as {
    failurePolicy?: string;
    clientConfig?: {
      service?: { name?: string; namespace?: string; path?: string; port?: number };
      caBundle?: string;
    };
  }[];
  const [hook] = hooks;
  if (!hook || hooks.length !== 1) return ['no single MutatingWebhookConfiguration webhook'];
  if (hook.failurePolicy !== 'Ignore') problems.push(`failurePolicy ${hook.failurePolicy}, not Ignore`);
  const svcRef = hook.clientConfig?.service;
  if (svcRef?.path !== path) problems.push(`path ${svcRef?.path}, not ${path}`);
  const [service] = findRendered(docs, 'Service', svcRef?.name);
  if (!service || svcRef?.namespace !== namespace)
    problems.push(`no Service ${svcRef?.namespace}/${svcRef?.name}`);
  const ports = ((service?.spec?.['ports'] ?? []) as { port: number; targetPort: string }[]).filter(
    (p) => p.port === (svcRef?.port ?? 443),
  );
  const [secret] = findRendered(docs, 'Secret').filter((s) => s.metadata.name?.endsWith('-webhook-cert'));
  const data = (secret?.['data'] ?? {}) as Record<string, string>;
  const pem = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString();
  if (hook.clientConfig?.caBundle !== data['ca.crt']) problems.push('caBundle is not the Secret ca.crt');
  try {
    const cert = new X509Certificate(pem('tls.crt'));
    if (!cert.verify(new X509Certificate(pem('ca.crt')).publicKey))
      problems.push('certificate not signed by ca.crt');
    if (!cert.checkHost(`${svcRef?.name}.${namespace}.svc`))
      problems.push('certificate does not name the Service');
  } catch (err) {
    problems.push(`certificate unreadable: ${String(err)}`);
  }
  const c = renderedContainer(docs) as ReturnType<typeof renderedContainer> & {
    ports?: { name: string; containerPort: number }[];
    volumeMounts?: { name: string; mountPath: string }[];
  };
  const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
  const port = c.ports?.find((p) => p.name === ports[0]?.targetPort)?.containerPort;
  if (!port || env['WEBHOOK_BIND_ADDRESS'] !== `:${port}`) {
    problems.push(`WEBHOOK_BIND_ADDRESS ${env['WEBHOOK_BIND_ADDRESS']} is not the Service's target port`);
  }
  const [deployment] = findRendered(docs, 'Deployment');
  type PodSpec = { volumes?: { name: string; secret?: { secretName: string } }[] };
  const volumes =
    (deployment?.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec?.volumes ?? [];
  const volume = volumes.find((v) => v.secret?.secretName === secret?.metadata.name);
  const mount = c.volumeMounts?.find((m) => m.name === volume?.name);
  if (!mount || env['WEBHOOK_CERT_DIR'] !== mount.mountPath)
    problems.push('WEBHOOK_CERT_DIR is not the mounted Secret');
  return problems;
}
