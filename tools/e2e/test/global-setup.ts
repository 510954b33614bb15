import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadedImage, snapshotOperatorImages } from '@stackops/demo/image-archives';
import { keepWorkloadsOnKwok } from '@stackops/demo/real-node';
import { buildNetworkImages } from '@stackops/images/network';
import { startControlPlane } from '@stackops/kube-env';
import { createKubeClient } from '@stackops/lib-common/client';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    e2eCluster: string;
    kubectl: string;
    helm: string;
    /** `nsenter --net=<this> -- …` reaches pod IPs (of every node: routes between their pod subnets). */
    netnsPath: string;
    /** The names of the real nodes (two: tests of spreading, draining and losing a node). */
    realNodes: string[];
    images: LoadedImage[];
    /** A folder for the run's files (values, manifests); removed with the run. */
    scratchDir: string;
  }
}

/**
 * A private cluster with two real nodes, started once per run, with the operator images that
 * `make images` built (the nx `test` target depends on `@stackops/images:images`, so they are built
 * once per run and are current) loaded into its containerd. `E2E_CLUSTER` names it (default
 * `stackops-e2e`); `E2E_REUSE=1` keeps it running between runs for a fast inner loop.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Copies: build/images is rewritten by any later build; the tests compare with what was loaded.
  const imageDir = mkdtempSync(join(tmpdir(), 'e2e-images-'));
  const images = await snapshotOperatorImages(imageDir);
  const scratchDir = mkdtempSync(join(tmpdir(), 'e2e-scratch-'));
  const archives = images.map((i) => i.archive);

  const name = process.env['E2E_CLUSTER'] ?? 'stackops-e2e';
  const reuse = process.env['E2E_REUSE'] === '1';
  const progress = (line: string) => process.stderr.write(`[e2e] ${line}\n`);
  const cp = await startControlPlane({
    name,
    realNodes: 2,
    nodes: 2,
    // A lost node is NotReady after 20 s (default 300 s): within one of keystone's 30 s probe
    // periods, as the lost-node test requires of the pods' endpoints.
    nodeMonitorGracePeriodSeconds: 20,
    // Open vSwitch on both nodes, as the network add-ons' ovs-cni expects of a host.
    ovs: true,
    fresh: !reuse,
    reuse,
    detach: reuse,
    ephemeral: !reuse,
    images: archives,
    progress,
  });
  if (!cp.realNode || cp.realNodes.length < 2) throw new Error(`cluster ${name} has not two real nodes`);
  // A reused cluster may hold older images under the same names.
  if (cp.reused) await cp.realNode.loadImages(archives);
  const client = createKubeClient(cp.kubeConfig, { fieldManager: 'stackops-e2e' });
  await keepWorkloadsOnKwok(client);
  client.close();
  // The network add-ons' images the tests load (multus, the CNI plugins, whereabouts) come from Go
  // modules: minutes each where they are not cached yet. Built here, once, so that no test's own
  // timeout has to hold a build (the first to load them did, and timed out on a fresh machine).
  await buildNetworkImages({ progress });

  project.provide('kubeconfigPath', cp.kubeconfigPath);
  project.provide('e2eCluster', name);
  project.provide('kubectl', cp.kubectl);
  project.provide('helm', cp.helm);
  project.provide('netnsPath', cp.realNode.netnsPath);
  project.provide(
    'realNodes',
    cp.realNodes.map((n) => n.name),
  );
  project.provide('images', images);
  project.provide('scratchDir', scratchDir);
  return async () => {
    if (!reuse) await cp.stop({ purge: true });
    rmSync(imageDir, { recursive: true, force: true });
    rmSync(scratchDir, { recursive: true, force: true });
  };
}
