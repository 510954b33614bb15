import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { BuiltImage } from './image-builder.js';
import { reproducibleTarFlags } from './tar.js';
import { exec } from './util/exec.js';
import { sha256Hex } from './util/hash.js';

export interface BuiltIndex {
  name: string;
  /** The image index's digest: what a registry reports for the multi-platform tag. */
  digest: string;
  platforms: string[];
  /** OCI layout holding the index and every platform's blobs. */
  ociLayout: string;
  archive: string;
}

/**
 * One OCI layout with an image index over the per-platform images (crane's `index append` only
 * writes to a registry, so the index is written here). Its bytes depend only on the manifests,
 * so it is as reproducible as they are.
 */
export async function writeImageIndex(
  dir: string,
  images: readonly BuiltImage[],
  epoch: number,
): Promise<BuiltIndex> {
  const [first] = images;
  if (first === undefined) throw new Error('an image index needs at least one image');
  const manifests = images.map((image) => {
    const index = JSON.parse(readFileSync(join(image.ociLayout, 'index.json'), 'utf8')) as {
      manifests: Array<{ mediaType: string; digest: string; size: number }>;
    };
    const m = index.manifests[0]!;
    const [os, architecture] = image.platform.split('/');
    return { mediaType: m.mediaType, digest: m.digest, size: m.size, platform: { architecture, os } };
  });
  const body = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests,
  });
  const digest = `sha256:${sha256Hex(body)}`;
  const recordFile = join(dir, 'index.json');
  if (existsSync(recordFile)) {
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as BuiltIndex;
    if (record.digest === digest && existsSync(record.archive)) return record;
  }
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const layout = join(staging, 'oci');
  const blobs = join(layout, 'blobs', 'sha256');
  mkdirSync(blobs, { recursive: true });
  for (const image of images) {
    const from = join(image.ociLayout, 'blobs', 'sha256');
    for (const f of readdirSync(from))
      if (!existsSync(join(blobs, f))) copyFileSync(join(from, f), join(blobs, f));
  }
  writeFileSync(join(blobs, digest.slice('sha256:'.length)), body);
  writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(
    join(layout, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.index.v1+json',
          digest,
          size: Buffer.byteLength(body),
          annotations: {
            'io.containerd.image.name': first.name,
            'org.opencontainers.image.ref.name': first.name.split(':').pop(),
          },
        },
      ],
    }),
  );
  await exec([
    'tar',
    ...reproducibleTarFlags(epoch),
    '--owner=0',
    '--group=0',
    '-C',
    layout,
    '-cf',
    join(staging, 'image.oci.tar'),
    'blobs',
    'index.json',
    'oci-layout',
  ]);
  const built: BuiltIndex = {
    name: first.name,
    digest,
    platforms: images.map((i) => i.platform),
    ociLayout: join(dir, 'oci'),
    archive: join(dir, 'image.oci.tar'),
  };
  writeFileSync(join(staging, 'index.json'), `${JSON.stringify(built, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  renameSync(staging, dir);
  return built;
}
