import { existsSync } from 'node:fs';
import { run } from '../util/run.js';

/** The Debian packages the real node runs on, and a file that shows each is installed. */
const nodePackages = [
  { name: 'containerd', file: '/usr/bin/containerd' },
  { name: 'containerd', file: '/usr/bin/ctr' },
  { name: 'runc', file: '/usr/sbin/runc' },
  { name: 'containernetworking-plugins', file: '/usr/lib/cni/bridge' },
  { name: 'iptables', file: '/usr/sbin/iptables' },
  { name: 'iproute2', file: '/usr/sbin/ip' },
  { name: 'util-linux', file: '/usr/bin/nsenter' },
  // The pause image is compiled here, statically.
  { name: 'gcc', file: '/usr/bin/gcc' },
  { name: 'libc6-dev', file: '/usr/lib/x86_64-linux-gnu/libc.a' },
] as const;

export function missingPackages(exists: (file: string) => boolean = existsSync): string[] {
  return [...new Set(nodePackages.filter((p) => !exists(p.file)).map((p) => p.name))];
}

/**
 * Installs the missing packages with apt-get (refreshing the package lists once if a package is
 * unknown). The node needs root anyway (namespaces, cgroups, mounts), so this does too.
 */
export async function ensureNodePackages(progress: (line: string) => void): Promise<void> {
  const missing = missingPackages();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `the real node needs root, and these Debian packages: ${missing.join(' ')} (apt-get install -y --no-install-recommends ${missing.join(' ')})`,
    );
  }
  progress(`installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = ['apt-get', 'install', '-y', '-q', '--no-install-recommends', ...missing];
  try {
    await run(install, { env });
  } catch {
    await run(['apt-get', 'update', '-q'], { env });
    await run(install, { env });
  }
  const still = missingPackages();
  if (still.length > 0) throw new Error(`apt-get did not install ${still.join(' ')}`);
}
