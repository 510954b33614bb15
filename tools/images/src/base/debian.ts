import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byteOrder } from '../tar.js';
import { exec } from '../util/exec.js';

// Resolving, downloading and extracting .debs is kube-env's (`@stackops/kube-env`), which also
// fetches Open vSwitch for its real nodes; what is only about image layers stays here.

/**
 * The package's entry for `/var/lib/dpkg/status.d/<name>`: its control fields with the `Status`
 * line dpkg adds on installation, which is how scanners (trivy, syft/grype) list a distroless
 * image's packages and versions.
 */
export async function statusEntry(deb: string): Promise<string> {
  const control = await exec(['dpkg-deb', '--field', deb]);
  const lines = control.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.startsWith('Package:'));
  lines.splice(at + 1, 0, 'Status: install ok installed');
  return `${lines.join('\n')}\n`;
}

/**
 * The CA bundle as Debian's update-ca-certificates writes it with the default configuration:
 * every .crt the ca-certificates package ships, in byte order of their paths, each ending in a
 * newline.
 */
export function caBundle(extractedCaCertificates: string): string {
  const root = join(extractedCaCertificates, 'usr', 'share', 'ca-certificates');
  const files = (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.crt'))
    .sort(byteOrder);
  if (files.length === 0) throw new Error(`no .crt files under ${root}`);
  return files
    .map((f) => {
      const pem = readFileSync(join(root, f), 'utf8');
      return pem.endsWith('\n') ? pem : `${pem}\n`;
    })
    .join('');
}
