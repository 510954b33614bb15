import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { defaultClusterName } from './cluster/control-plane.js';
import { type ControlPlane, startControlPlane } from './control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin kubeconfig of the control plane this test run uses (also in process.env.KUBECONFIG). */
    kubeconfigPath: string;
    /** The kube-env cluster name (for `kube-env logs <component> --name …`). */
    kubeEnvCluster: string;
  }
}

/**
 * Vitest global setup: one control plane for the whole run, shared by every test file.
 * - KUBE_ENV_REUSE=1: use the cluster named KUBE_ENV_NAME (default stackops-dev), starting it if
 *   needed and leaving it running afterwards (fast inner loop; `make test` starts it first).
 * - otherwise: a private cluster for this run, deleted in teardown.
 * - KUBE_ENV_REAL_NODE=1: with a real node (a reused cluster without one is restarted with one,
 *   keeping its data); KUBE_ENV_REAL_NODES=N: with N of them (a reused cluster with fewer is
 *   restarted); KUBE_ENV_IMAGES=<path>,<path>… loads those images into every one.
 * - KUBE_ENV_ADMISSION_WEBHOOKS=1: the API server calls admission webhooks (a reused cluster
 *   started otherwise is restarted, keeping its data).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reuse = process.env.KUBE_ENV_REUSE === '1';
  const realNode = process.env.KUBE_ENV_REAL_NODE === '1';
  const realNodes = process.env.KUBE_ENV_REAL_NODES ? Number(process.env.KUBE_ENV_REAL_NODES) : undefined;
  const images = (process.env.KUBE_ENV_IMAGES ?? '').split(',').filter((p) => p.length > 0);
  const admissionWebhooks = process.env.KUBE_ENV_ADMISSION_WEBHOOKS === '1';
  const progress = (line: string) => process.stderr.write(`[kube-env] ${line}\n`);
  let controlPlane: ControlPlane;
  if (reuse) {
    const name = process.env.KUBE_ENV_NAME || defaultClusterName;
    controlPlane = await startControlPlane({
      name,
      reuse: true,
      detach: true,
      realNode,
      ...(realNodes !== undefined ? { realNodes } : {}),
      images,
      admissionWebhooks,
      progress,
    });
  } else {
    const name = `vitest-${process.pid}-${Date.now().toString(36)}`;
    controlPlane = await startControlPlane({
      name,
      fresh: true,
      ephemeral: true,
      realNode,
      ...(realNodes !== undefined ? { realNodes } : {}),
      images,
      admissionWebhooks,
      progress,
    });
  }
  if (!controlPlane.reused) {
    progress(
      `started cluster ${controlPlane.name} at ${controlPlane.server} in ${(controlPlane.startupMs / 1000).toFixed(1)}s`,
    );
  }
  // Workers are started after global setup, so they inherit this.
  process.env.KUBECONFIG = controlPlane.kubeconfigPath;
  project.provide('kubeconfigPath', controlPlane.kubeconfigPath);
  project.provide('kubeEnvCluster', controlPlane.name);
  return async () => {
    if (!reuse) await controlPlane.stop({ purge: true });
  };
}
