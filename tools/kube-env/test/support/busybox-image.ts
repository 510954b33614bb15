import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSingleLayerImage } from '../../src/node/images.js';
import { cacheLayout } from '../../src/paths.js';
import { run } from '../../src/util/run.js';

/** The applets the tests call by name (busybox decides what to run from argv[0]). */
const applets = [
  'sh',
  'cat',
  'echo',
  'ip',
  'nc',
  'nslookup',
  'sleep',
  'wget',
  'httpd',
  'hostname',
  'ls',
  'test',
];

export const busyboxImage = 'kube-env.test/busybox:1';

/**
 * A tiny image with real software for the real-node tests: Debian's statically linked busybox
 * (`apt-get download busybox-static`, no container registry needed) and links for its applets.
 * Built once into the binaries cache.
 */
export async function ensureBusyboxImage(): Promise<string> {
  const output = join(cacheLayout().root, 'images', 'test-busybox.oci.tar');
  if (existsSync(output)) return output;
  mkdirSync(join(cacheLayout().root, 'images'), { recursive: true });
  const work = mkdtempSync(join(cacheLayout().root, 'images', '.busybox-'));
  try {
    await run(['apt-get', 'download', '-q', 'busybox-static'], { cwd: work });
    const deb = readdirSync(work).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download busybox-static gave no .deb');
    await run(['dpkg-deb', '-x', join(work, deb), join(work, 'root')]);
    await buildSingleLayerImage(join(cacheLayout().bin, 'crane'), {
      name: busyboxImage,
      files: [
        { path: 'bin/busybox', source: join(work, 'root', 'bin', 'busybox'), mode: 0o755 },
        ...applets.map((applet) => ({ path: `bin/${applet}`, symlink: 'busybox' })),
      ],
      entrypoint: ['/bin/sh'],
      output,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return output;
}
