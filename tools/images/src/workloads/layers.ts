import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../source.js';
import { byteOrder } from '../tar.js';
import { sha256Hex } from '../util/hash.js';

/** The layers the stand-in workload images are stacked from (tools/images/workloads/layers/<name>). */
export const layerNames = [
  'base',
  'httpd',
  'python',
  'mariadb',
  'keystone',
  'placement',
  'openstackclient',
  'haproxy',
  'jumphost',
  'sushy',
] as const;
export type LayerName = (typeof layerNames)[number];

export interface LayerDefinition {
  name: LayerName;
  /** The layers below it, bottom first: its chroot is an overlay of these. */
  below: readonly LayerName[];
  /** Built with the Python wheelhouse mounted (pip installs from it). */
  wheels?: boolean;
}

/**
 * base: Debian bookworm (mmdebstrap) with kolla's start scripts and the TCIB users.
 * httpd and python are shared: keystone and placement stack base, httpd, python; openstackclient
 * stacks base, python (the python layer is /usr/local only, so it fits on either).
 */
export const layers: Record<LayerName, LayerDefinition> = {
  base: { name: 'base', below: [] },
  httpd: { name: 'httpd', below: ['base'] },
  python: { name: 'python', below: ['base'], wheels: true },
  mariadb: { name: 'mariadb', below: ['base'] },
  keystone: { name: 'keystone', below: ['base', 'httpd', 'python'] },
  placement: { name: 'placement', below: ['base', 'httpd', 'python'] },
  openstackclient: { name: 'openstackclient', below: ['base', 'python'] },
  // SIP's services (haproxy, the jump host) and the Redfish BMC emulator its tests talk to
  haproxy: { name: 'haproxy', below: ['base'] },
  jumphost: { name: 'jumphost', below: ['base'], wheels: true },
  sushy: { name: 'sushy', below: ['base'], wheels: true },
};

/**
 * Every layer's files get this mtime (at most), and the images this `created` time: a constant,
 * so that an unchanged recipe gives byte-identical layers on every machine and every commit.
 */
export const WORKLOADS_EPOCH = 1735689600; // 2025-01-01T00:00:00Z

/** pip runs from its own wheel (in the chroot, for the base layer's python), never from the host. */
export const PIP_VERSION = '26.3';

export function workloadsDir(): string {
  return join(repoRoot(), 'tools', 'images', 'workloads');
}

/** Hash of a folder's (or file's) relative paths, modes and contents: a recipe's identity. */
export function treeDigest(path: string): string {
  const parts: string[] = [];
  const visit = (p: string) => {
    const st = statSync(p);
    const rel = relative(path, p) || '.';
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort(byteOrder)) visit(join(p, name));
      return;
    }
    parts.push(`${rel}\0${(st.mode & 0o111) !== 0 ? 'x' : '-'}\0${sha256Hex(readFileSync(p))}`);
  };
  visit(path);
  return sha256Hex(parts.join('\n'));
}

/** The scripts every layer goes through: a change to them rebuilds everything. */
export function toolingDigest(dir: string = workloadsDir()): string {
  return sha256Hex(['build-layer.sh', 'tar-layer.py'].map((f) => treeDigest(join(dir, f))).join('\n'));
}
