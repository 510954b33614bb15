import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readOperatorImages } from '@stackops/images';

const execFileP = promisify(execFile);

/** An operator image as loaded into the real node: its name, and the config digest the kubelet reports. */
export interface LoadedImage {
  operator: string;
  name: string;
  configDigest: string;
  /** The copy that is loaded. */
  archive: string;
}

const member = async (archive: string, path: string): Promise<string> =>
  (await execFileP('tar', ['-xOf', archive, path], { maxBuffer: 16 * 1024 * 1024 })).stdout;

/** Name and config digest from an OCI archive's own index and manifest. */
async function describeArchive(archive: string): Promise<{ name: string; configDigest: string }> {
  const index = JSON.parse(await member(archive, 'index.json')) as {
    manifests: { digest: string; annotations?: Record<string, string> }[];
  };
  const entry = index.manifests[0];
  const name = entry?.annotations?.['io.containerd.image.name'];
  if (!entry || !name) throw new Error(`${archive}: index.json names no image`);
  const manifest = JSON.parse(await member(archive, `blobs/${entry.digest.replace(':', '/')}`)) as {
    config: { digest: string };
  };
  return { name, configDigest: manifest.config.digest };
}

/**
 * The operator images `make images` built, copied into `dir` first: `build/images/` is rewritten by
 * every build (a new commit is a new image), so the copies, and the digests read from the copies
 * themselves, are what gets loaded and checked.
 */
export async function snapshotOperatorImages(dir: string): Promise<LoadedImage[]> {
  const built = readOperatorImages();
  const missing = built
    ? built.images.filter((i) => !existsSync(i.archive)).map((i) => i.archive)
    : ['build/images'];
  if (!built || missing.length > 0)
    throw new Error(`the operator images are missing (${missing.join(', ')}): run \`make images\``);
  mkdirSync(dir, { recursive: true });
  const out: LoadedImage[] = [];
  for (const image of built.images) {
    const archive = join(dir, `${image.operator}-operator.oci.tar`);
    copyFileSync(image.archive, archive);
    out.push({ operator: image.operator, archive, ...(await describeArchive(archive)) });
  }
  return out;
}
