import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildWorkloadImages, type WorkloadImageName } from '@stackops/images/workloads';
import { loadImages } from '@stackops/kube-env';
import { Kinds, type RestKubeClient } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import type { PodShape } from '../support.js';

const execFileP = promisify(execFile);

/**
 * The stand-in workload images (built, or taken from their layer cache, then loaded into the real
 * node): name by image.
 */
export async function loadWorkloadImages(cluster: string): Promise<Record<WorkloadImageName, string>> {
  const built = await buildWorkloadImages();
  const images = Object.values(built.images);
  await loadImages(
    cluster,
    images.map((i) => i.built.archive),
  );
  return Object.fromEntries(images.map((i) => [i.image, i.name])) as Record<WorkloadImageName, string>;
}

const isPodReady = (p: PodShape) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Pods matching `selector` once exactly `count` of them exist and are Ready (none terminating). */
export async function podsReady(
  client: RestKubeClient,
  namespace: string,
  selector: string,
  count: number,
  timeoutMs = 300_000,
): Promise<PodShape[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pods = (await client.list<PodShape>(Kinds.Pod, { namespace, labelSelector: selector })).items;
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    if (live.length === count && pods.length === count && live.every(isPodReady)) return live;
    if (Date.now() > deadline)
      throw new Error(
        `${selector}: ${live.filter(isPodReady).length}/${count} Ready of ${pods.length}: ${JSON.stringify(
          pods.map((p) => ({ name: p.metadata.name, status: p.status?.containerStatuses })),
        )}`,
      );
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** lib-common's `waitUntil` with the end-to-end pace: real pods start in minutes, not seconds. */
export const until = <T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 180_000,
  intervalMs = 2000,
): Promise<T> => waitUntil(what, probe, { timeoutMs, intervalMs });

/** A test CA and one server certificate signed by it (PEM), made with the host's openssl. */
export interface TestCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * Generates a throw-away CA and a server certificate for `dnsNames` (SANs) in a temporary folder:
 * real certificates, so that httpd serves them and clients verify them against the CA.
 */
export async function makeTestCertificates(dnsNames: string[]): Promise<TestCertificates> {
  const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'e2e-tls-'));
  const openssl = (args: string[]) => execFileP('openssl', args, { cwd: dir, timeout: 60_000 });
  try {
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=stackops e2e CA',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]);
    await openssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${dnsNames[0]}`,
      '-keyout',
      'tls.key',
      '-out',
      'tls.csr',
    ]);
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(',')}\n`);
    await openssl([
      'x509',
      '-req',
      '-in',
      'tls.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
      '-out',
      'tls.crt',
    ]);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return { caPem: read('ca.crt'), certPem: read('tls.crt'), keyPem: read('tls.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
