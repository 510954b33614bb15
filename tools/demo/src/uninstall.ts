import { setTimeout as sleep } from 'node:timers/promises';
import {
  isConflict,
  isNotFound,
  type KindRef,
  Kinds,
  type KubeClient,
  type KubeObject,
  listAll,
} from '@stackops/lib-common/client';
import { bareMetalHostCrd, isOurFinalizer, stackopsCrds, stackopsKinds } from './crds.js';
import { run } from './exec.js';

export interface UninstallOptions {
  client: KubeClient;
  /** The helm binary. */
  helm: string;
  /** Handed to helm; without it helm reads KUBECONFIG, as the client did. */
  kubeconfigPath?: string;
  release: string;
  namespace: string;
  /** How long the custom resources of one kind may take to go while their operator cleans up. */
  timeoutMs: number;
  /** Also delete metal3's BareMetalHost CRD, and only if this release installed it. */
  deleteBareMetalHostCrd: boolean;
  log: (line: string) => void;
}

export interface UninstallReport {
  /** `<Kind> <ns>/<name>` of every custom resource deleted, its operator having finished. */
  deleted: string[];
  /** Custom resources whose operator did not finish in time: our finalizers were removed. */
  forced: string[];
  releaseUninstalled: boolean;
  crdsDeleted: string[];
}

/** A custom resource held by a finalizer that no stackops operator sets: uninstalling stops there. */
export class UninstallBlockedError extends Error {}

const label = (kind: KindRef, o: KubeObject): string =>
  `${kind.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const refOf = (o: KubeObject) => ({
  name: o.metadata.name ?? '',
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
});

/** Every object of a kind in every namespace; none when its CRD is not installed. */
async function listKind(client: KubeClient, kind: KindRef): Promise<KubeObject[]> {
  try {
    return (await listAll(client, kind)).items;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

async function waitForNone(client: KubeClient, kind: KindRef, timeoutMs: number): Promise<KubeObject[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await listKind(client, kind);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(500);
  }
}

/** Removes this project's finalizers from an object, keeping anyone else's; returns the ones removed. */
async function removeOurFinalizers(client: KubeClient, kind: KindRef, obj: KubeObject): Promise<string[]> {
  let live: KubeObject | undefined = obj;
  for (let attempt = 0; live && attempt < 5; attempt++) {
    const finalizers = live.metadata.finalizers ?? [];
    const ours = finalizers.filter(isOurFinalizer);
    if (ours.length === 0) return [];
    try {
      // resourceVersion makes the merge patch conditional: a concurrent change is a conflict, not lost.
      await client.patch(
        kind,
        refOf(live),
        {
          metadata: {
            resourceVersion: live.metadata.resourceVersion,
            finalizers: finalizers.filter((f) => !isOurFinalizer(f)),
          },
        },
        'merge',
      );
      return ours;
    } catch (err) {
      if (isNotFound(err)) return [];
      if (!isConflict(err)) throw err;
      live = await client.get(kind, refOf(live));
    }
  }
  return [];
}

/**
 * Deletes every custom resource of one kind and waits for its operator to release them. Those still
 * there after the timeout (the operator is gone or stuck) lose this project's finalizers, with a
 * warning: their clean-up outside the cluster (e.g. a Keystone registration) did not run.
 */
async function deleteKind(opts: UninstallOptions, kind: KindRef, report: UninstallReport): Promise<void> {
  const { client, log } = opts;
  const items = await listKind(client, kind);
  if (items.length === 0) return;
  log(`deleting ${items.length} ${kind.kind}: ${items.map((o) => label(kind, o)).join(', ')}`);
  for (const o of items) await client.delete(kind, refOf(o), { propagationPolicy: 'Background' });
  const left = await waitForNone(client, kind, opts.timeoutMs);
  const leftNames = new Set(left.map((o) => label(kind, o)));
  report.deleted.push(...items.map((o) => label(kind, o)).filter((l) => !leftNames.has(l)));
  if (left.length === 0) return;
  for (const o of left) {
    const removed = await removeOurFinalizers(client, kind, o);
    if (removed.length === 0) continue;
    report.forced.push(label(kind, o));
    log(
      `WARNING: ${label(kind, o)} was still there after ${Math.round(opts.timeoutMs / 1000)}s (is its operator running?); ` +
        `removed its finalizers ${removed.join(', ')}: the operator's clean-up outside the cluster did not run`,
    );
  }
  // Without finalizers an object goes at once; a few seconds cover the API server and the GC.
  const stuck = await waitForNone(client, kind, Math.max(5_000, Math.min(30_000, opts.timeoutMs)));
  if (stuck.length > 0) {
    const held = stuck.map(
      (o) => `${label(kind, o)} (finalizers: ${(o.metadata.finalizers ?? []).join(', ')})`,
    );
    throw new UninstallBlockedError(
      `${held.join('; ')}: held by finalizers no stackops operator sets. Let their controller finish or remove ` +
        'them, then run the uninstall again. The Helm release and the CRDs were left in place.',
    );
  }
}

async function releaseExists(opts: UninstallOptions): Promise<boolean> {
  try {
    await run(opts.helm, ['status', opts.release, '-n', opts.namespace, ...helmKubeconfig(opts)]);
    return true;
  } catch (err) {
    if (/release: not found/.test(String(err))) return false;
    throw err;
  }
}

const helmKubeconfig = (opts: UninstallOptions): string[] =>
  opts.kubeconfigPath ? ['--kubeconfig', opts.kubeconfigPath] : [];

/** Deletes the BareMetalHost CRD only when this release's SIP chart created it (Helm's annotations say so). */
async function deleteBareMetalHostCrdIfOurs(opts: UninstallOptions, report: UninstallReport): Promise<void> {
  const crd = await opts.client.get(Kinds.CustomResourceDefinition, { name: bareMetalHostCrd });
  if (!crd) {
    opts.log(`${bareMetalHostCrd} is not installed`);
    return;
  }
  const annotations = crd.metadata.annotations ?? {};
  if (
    annotations['meta.helm.sh/release-name'] !== opts.release ||
    annotations['meta.helm.sh/release-namespace'] !== opts.namespace
  ) {
    throw new UninstallBlockedError(
      `${bareMetalHostCrd} was not installed by release ${opts.namespace}/${opts.release} (metal3 or another ` +
        'release owns it); it was left alone, and with it every BareMetalHost',
    );
  }
  await opts.client.delete(Kinds.CustomResourceDefinition, { name: bareMetalHostCrd });
  report.crdsDeleted.push(bareMetalHostCrd);
}

/**
 * Uninstalls stackops from a cluster, in the only order that leaves nothing behind: the custom
 * resources first, while their operators still run and release their finalizers (see
 * `stackopsKinds`), then the Helm release, then exactly this project's CRDs, by name.
 */
export async function uninstall(opts: UninstallOptions): Promise<UninstallReport> {
  const { client, log } = opts;
  const report: UninstallReport = { deleted: [], forced: [], releaseUninstalled: false, crdsDeleted: [] };
  for (const kind of stackopsKinds) await deleteKind(opts, kind, report);

  if (await releaseExists(opts)) {
    log(`helm uninstall ${opts.release} -n ${opts.namespace}`);
    await run(opts.helm, [
      'uninstall',
      opts.release,
      '-n',
      opts.namespace,
      '--wait',
      '--timeout',
      '5m',
      ...helmKubeconfig(opts),
    ]);
    report.releaseUninstalled = true;
  } else {
    log(`no Helm release ${opts.release} in namespace ${opts.namespace}: nothing to uninstall there`);
  }

  for (const name of stackopsCrds) {
    if (await client.delete(Kinds.CustomResourceDefinition, { name })) report.crdsDeleted.push(name);
  }
  if (opts.deleteBareMetalHostCrd) await deleteBareMetalHostCrdIfOurs(opts, report);
  if (report.crdsDeleted.length > 0) log(`deleted CRDs: ${report.crdsDeleted.join(', ')}`);
  const deadline = Date.now() + 60_000;
  for (const name of report.crdsDeleted) {
    while (await client.get(Kinds.CustomResourceDefinition, { name })) {
      if (Date.now() >= deadline) throw new Error(`CRD ${name} is still terminating after 60s`);
      await sleep(500);
    }
  }
  return report;
}
