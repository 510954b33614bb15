import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { byteOrder } from '../tar.js';
import { exec } from '../util/exec.js';
import { sha256FileHex } from '../util/hash.js';

/** A package as the machine's apt sources offer it now (its candidate version). */
export interface DebianPackage {
  name: string;
  version: string;
  architecture: string;
  /** Of the .deb, from the signed Packages index; checked on every download and cache hit. */
  sha256: string;
  /** The .deb in the download cache (set by `downloadPackages`). */
  deb?: string;
}

/** Splits `apt-cache show` / control-file text into paragraphs of fields. */
export function parseControl(text: string): Array<Map<string, string>> {
  const paragraphs: Array<Map<string, string>> = [];
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last: string | undefined;
    for (const line of block.split('\n')) {
      if (/^\s/.test(line) && last !== undefined) {
        fields.set(last, `${fields.get(last)}\n${line}`);
      } else {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        last = line.slice(0, colon);
        fields.set(last, line.slice(colon + 1).trim());
      }
    }
    if (fields.size > 0) paragraphs.push(fields);
  }
  return paragraphs;
}

const aptHelp =
  'apt cannot find it: run `apt-get update` (as root) so the package lists are current, and check that the machine has Debian sources';

async function aptCacheShow(names: readonly string[]): Promise<string> {
  return exec(['apt-cache', 'show', '--no-all-versions', ...names], { env: { ...process.env, LC_ALL: 'C' } });
}

/**
 * Candidate version and .deb sha256 of each package, from the local package lists (no network).
 * When the lists lack a package and we are root, they are refreshed once with `apt-get update`.
 */
export async function resolvePackages(
  names: readonly string[],
  architecture: string,
  progress: (line: string) => void,
): Promise<DebianPackage[]> {
  let text: string;
  try {
    text = await aptCacheShow(names);
  } catch (error) {
    if (process.getuid?.() !== 0) throw new Error(`apt-cache show ${names.join(' ')}: ${aptHelp}\n${error}`);
    progress('images: apt-cache does not know every package; running apt-get update once');
    await exec(['apt-get', 'update', '-qq']);
    text = await aptCacheShow(names);
  }
  const paragraphs = parseControl(text);
  return names.map((name) => {
    const p = paragraphs.find(
      (f) => f.get('Package') === name && [architecture, 'all'].includes(f.get('Architecture') ?? ''),
    );
    const version = p?.get('Version');
    const sha256 = p?.get('SHA256');
    if (!p || !version || !sha256) throw new Error(`Debian package ${name} (${architecture}): ${aptHelp}`);
    return { name, version, architecture: p.get('Architecture')!, sha256 };
  });
}

function debFileName(p: DebianPackage): string {
  return `${p.name}_${p.version.replaceAll(':', '%3a')}_${p.architecture}.deb`;
}

/**
 * The .debs into `cacheDir` with `apt-get download` (kept there: a later build with the same
 * versions downloads nothing). Each file must have the sha256 the package index gives.
 */
export async function downloadPackages(
  packages: readonly DebianPackage[],
  cacheDir: string,
  progress: (line: string) => void,
): Promise<DebianPackage[]> {
  mkdirSync(cacheDir, { recursive: true });
  const result = packages.map((p) => ({ ...p, deb: join(cacheDir, debFileName(p)) }));
  const missing: typeof result = [];
  for (const p of result) {
    if (existsSync(p.deb) && (await sha256FileHex(p.deb)) === p.sha256) continue;
    rmSync(p.deb, { force: true });
    missing.push(p);
  }
  if (missing.length === 0) return result;

  progress(`images: apt-get download ${missing.map((p) => `${p.name}=${p.version}`).join(' ')}`);
  const tmp = join(cacheDir, `download-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    // As root, apt would drop to its _apt user, which cannot write into the build folder.
    const sandbox = process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : [];
    await exec(['apt-get', 'download', '-qq', ...sandbox, ...missing.map((p) => `${p.name}=${p.version}`)], {
      cwd: tmp,
    }).catch((error: Error) => {
      throw new Error(`apt-get download failed; ${aptHelp}\n${error.message}`);
    });
    const downloaded = new Map<string, string>();
    for (const file of readdirSync(tmp))
      downloaded.set(await sha256FileHex(join(tmp, file)), join(tmp, file));
    for (const p of missing) {
      const file = downloaded.get(p.sha256);
      if (file === undefined) {
        throw new Error(`apt-get download gave no file with sha256 ${p.sha256} for ${p.name} ${p.version}`);
      }
      renameSync(file, p.deb);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return result;
}

export async function extractPackage(deb: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await exec(['dpkg-deb', '--extract', deb, dir]);
}

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
