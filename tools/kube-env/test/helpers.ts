import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import { inject } from 'vitest';
import { cacheLayout } from '../src/paths.js';

/** The kubeconfig of the control plane the global setup started (or reused) for this run. */
export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  return kc;
}

export function clients(kc: KubeConfig = kubeConfig()) {
  return {
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
  };
}

/** A namespace of its own for each test, and the default ServiceAccount in it (pods need it). */
export async function createTestNamespace(core: CoreV1Api, prefix: string): Promise<string> {
  const ns: V1Namespace = await core.createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
  const name = ns.metadata?.name ?? '';
  await waitFor(`default ServiceAccount in ${name}`, async () => {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return true;
    } catch {
      return false;
    }
  });
  return name;
}

/** Polls `check` until it returns true; on timeout the message includes the last observed state. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => Promise<unknown> } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 45_000);
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      const state = options.describe ? JSON.stringify(await options.describe(), null, 2) : '';
      throw new Error(`timed out waiting for ${what}${state ? `\nlast state: ${state}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}

const execFileAsync = promisify(execFile);

/** Runs kubectl or helm from the kube-env cache against this run's cluster. */
export async function tool(name: 'kubectl' | 'helm', args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(join(cacheLayout().bin, name), args, {
    env: { ...process.env, KUBECONFIG: inject('kubeconfigPath') },
    timeout: 120_000,
  });
  return stdout;
}

/** kubectl against a cluster a test started itself (not this run's shared one). */
export async function kubectlIn(
  cp: { kubectl: string; kubeconfigPath: string },
  args: string[],
): Promise<string> {
  const { stdout } = await execFileAsync(cp.kubectl, args, {
    env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
    timeout: 60_000,
  });
  return stdout;
}

export const isPodReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** A Deployment `name` of `replicas` pods labelled app=`name` (podTemplate). */
export const deployment = (name: string, replicas: number) => ({
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }) },
});

/** A pod template labelled app=`app` whose pod runs once (restartPolicy Never), for Jobs. */
export const runOnceTemplate = (app: string) => ({
  ...podTemplate({ app }),
  spec: { ...podTemplate({}).spec, restartPolicy: 'Never' },
});

/** A minimal pod template: kwok never runs the image, so any name will do. */
export function podTemplate(labels: Record<string, string>) {
  return {
    metadata: { labels },
    spec: { containers: [{ name: 'main', image: 'registry.invalid/kube-env-test:1' }] },
  };
}
