import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinary } from '@stackops/kube-env';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { locateCrane, startRegistry } from '../src/crane.js';
import { buildOperatorImages, operatorNames } from '../src/operators.js';
import { repoRoot } from '../src/source.js';
import { summary } from '../src/summary.js';
import { exec } from '../src/util/exec.js';
import { sha256FileHex } from '../src/util/hash.js';

const result = inject('operatorImages');
const root = repoRoot();
const scratch = mkdtempSync(join(tmpdir(), 'images-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Descriptor {
  digest: string;
  size: number;
  mediaType: string;
  annotations?: Record<string, string>;
}
interface ImageConfigFile {
  architecture: string;
  os: string;
  created: string;
  config: {
    Entrypoint?: string[];
    User?: string;
    WorkingDir?: string;
    Env?: string[];
    Labels?: Record<string, string>;
  };
  rootfs: { diff_ids: string[] };
}

const blob = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));

/** Reads an image back from its OCI layout, as a runtime importing it would. */
function readLayout(layout: string) {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const [descriptor] = index.manifests;
  const manifest = JSON.parse(readFileSync(blob(layout, descriptor!.digest), 'utf8')) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  const config = JSON.parse(readFileSync(blob(layout, manifest.config.digest), 'utf8')) as ImageConfigFile;
  return { index, descriptor: descriptor!, manifest, config };
}

/** The image's title and program name: `<x>-operator`, and `stackops-operators` for the four in one. */
const titleOf = (operator: string) =>
  operator === 'combined' ? 'stackops-operators' : `${operator}-operator`;

/**
 * The chart that renders an operator's image: its own, or for the combined process the umbrella
 * chart with its operator charts packed beside it (a copy of charts/, so the checkout is untouched).
 */
async function chartOf(helm: string, operator: string): Promise<{ dir: string; template: string }> {
  if (operator !== 'combined')
    return { dir: join(root, 'charts', `${operator}-operator`), template: 'templates/deployment.yaml' };
  const charts = join(scratch, 'charts');
  cpSync(join(root, 'charts'), charts, { recursive: true });
  await exec([helm, 'dependency', 'build', join(charts, 'stackops'), '--skip-refresh']);
  return { dir: join(charts, 'stackops'), template: 'templates/operators.yaml' };
}

function image(operator: string) {
  const found = result.images.find((i) => i.operator === operator);
  if (!found) throw new Error(`no image for ${operator}`);
  return found;
}

describe('the operator images', () => {
  it('are built for the four operators and the four in one, named exactly as their charts render the image', async () => {
    expect(result.images.map((i) => i.operator).sort()).toEqual([...operatorNames].sort());
    const helm = await ensureBinary('helm');
    for (const operator of operatorNames) {
      const chart = await chartOf(helm, operator);
      const rendered = await exec([helm, 'template', 'x', chart.dir, '--show-only', chart.template]);
      const chartImage = /^\s+image: "?([^"\s]+)"?$/m.exec(rendered)?.[1];
      expect(chartImage, `${operator}'s chart`).toBe(image(operator).name);
      const { descriptor } = readLayout(image(operator).ociLayout);
      expect(descriptor.annotations?.['io.containerd.image.name']).toBe(image(operator).name);
      expect(descriptor.annotations?.['org.opencontainers.image.ref.name']).toBe(
        image(operator).name.split(':').pop(),
      );
    }
  });

  it('have content-addressed layouts and archives holding the same image', async () => {
    for (const img of result.images) {
      const { descriptor, manifest } = readLayout(img.ociLayout);
      expect(descriptor.digest).toBe(img.digest);
      expect(`sha256:${await sha256FileHex(blob(img.ociLayout, img.digest))}`).toBe(img.digest);
      for (const layer of manifest.layers) {
        expect(`sha256:${await sha256FileHex(blob(img.ociLayout, layer.digest))}`).toBe(layer.digest);
      }
      const members = (await exec(['tar', '-tf', img.archive])).trim().split('\n');
      for (const digest of [img.digest, manifest.config.digest, ...manifest.layers.map((l) => l.digest)]) {
        expect(members).toContain(`blobs/${digest.replace(':', '/')}`);
      }
      expect(members).toContain('index.json');
      expect(members).toContain('oci-layout');
    }
  });

  it('share one base layer, identical in all of them, and differ only in the second', () => {
    const bases = new Set(result.images.map((i) => i.layers[0]?.digest));
    expect(bases.size).toBe(1);
    expect(result.images.every((i) => i.layers.length === 2)).toBe(true);
    expect(new Set(result.images.map((i) => i.layers[1]?.digest)).size).toBe(operatorNames.length);
    // node is ~98% of the base; the bundle layer is small.
    for (const i of result.images) expect(i.layers[1]!.size).toBeLessThan(i.layers[0]!.size / 20);
  });

  it('run node on the bundle as 65532:65532 in /app, with production env and OCI labels', () => {
    for (const img of result.images) {
      const { config, manifest } = readLayout(img.ociLayout);
      const pkg = JSON.parse(readFileSync(join(root, 'operators', img.operator, 'package.json'), 'utf8'));
      expect(config.architecture).toBe('amd64');
      expect(config.os).toBe('linux');
      expect(config.config.User).toBe('65532:65532');
      expect(config.config.Entrypoint).toEqual(['/usr/local/bin/node', '/app/bundle/main.mjs']);
      expect(config.config.WorkingDir).toBe('/app');
      expect(config.config.Env).toContain('NODE_ENV=production');
      expect(config.config.Labels).toMatchObject({
        'org.opencontainers.image.title': titleOf(img.operator),
        'org.opencontainers.image.version': pkg.version,
        'org.opencontainers.image.revision': inject('imageSource').revision,
        'org.opencontainers.image.licenses': pkg.license,
        'org.opencontainers.image.source': 'https://github.com/stackops/stackops',
      });
      expect(new Date(config.created).getTime() / 1000).toBe(inject('imageSource').epoch);
      expect(config.rootfs.diff_ids).toEqual(img.layers.map((l) => l.diffId));
      expect(manifest.layers.map((l) => l.mediaType)).toEqual([
        'application/vnd.oci.image.layer.v1.tar+gzip',
        'application/vnd.oci.image.layer.v1.tar+gzip',
      ]);
    }
  });

  it("have a base with only node's libraries, the CA bundle, a nonroot user and what scanners read", async () => {
    const img = image('keystone');
    const layer = blob(img.ociLayout, img.layers[0]!.digest);
    const listing = await exec(['tar', '--numeric-owner', '-tvzf', layer]);
    const entries = new Map(
      listing
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/))
        .map((f) => [f[5]!, { mode: f[0]!, owner: f[1]! }]),
    );
    expect(entries.get('tmp/')?.mode).toBe('drwxrwxrwt');
    expect(entries.get('home/nonroot/')).toEqual({ mode: 'drwx------', owner: '65532/65532' });
    expect(entries.get('usr/local/bin/node')).toEqual({ mode: '-rwxr-xr-x', owner: '0/0' });
    const libraries = [...entries.keys()].filter((e) => /\.so[.\d]*$/.test(e));
    expect(libraries.sort()).toEqual([
      'lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
      'lib/x86_64-linux-gnu/libc.so.6',
      'lib/x86_64-linux-gnu/libdl.so.2',
      'lib/x86_64-linux-gnu/libgcc_s.so.1',
      'lib/x86_64-linux-gnu/libm.so.6',
      'lib/x86_64-linux-gnu/libpthread.so.0',
      'lib64/ld-linux-x86-64.so.2',
      'usr/lib/x86_64-linux-gnu/libstdc++.so.6',
      // the file the libstdc++.so.6 symlink points to, as in the package
      expect.stringMatching(/^usr\/lib\/x86_64-linux-gnu\/libstdc\+\+\.so\.6\.\d+\.\d+$/),
    ]);
    for (const p of result.base.packages) {
      expect(entries.has(`var/lib/dpkg/status.d/${p.name}`), p.name).toBe(true);
      expect(entries.has(`usr/share/doc/${p.name}/copyright`) || entries.has(`usr/share/doc/${p.name}`)).toBe(
        true,
      );
    }

    const rootfs = join(scratch, 'base');
    mkdirSync(rootfs);
    await exec(['tar', '-xzf', layer, '-C', rootfs]);
    const read = (p: string) => readFileSync(join(rootfs, p), 'utf8');
    expect(read('etc/passwd')).toMatch(/^nonroot:x:65532:65532:nonroot:\/home\/nonroot:/m);
    expect(read('etc/group')).toMatch(/^nonroot:x:65532:$/m);
    expect(read('etc/os-release')).toMatch(/^ID=debian$/m);
    expect(read('etc/ssl/certs/ca-certificates.crt').match(/BEGIN CERTIFICATE/g)?.length).toBeGreaterThan(
      100,
    );
    const libc = result.base.packages.find((p) => p.name === 'libc6')!;
    expect(read('var/lib/dpkg/status.d/libc6')).toMatch(
      new RegExp(
        `^Package: libc6\\nStatus: install ok installed\\n[\\s\\S]*^Version: ${libc.version.replaceAll('+', '\\+')}$`,
        'm',
      ),
    );
  });

  const unpackedLayers = new Map<string, Promise<void>>();
  /** The image unpacked (once per image), and how to run a command in it as its user with its env. */
  async function unpacked(img: (typeof result.images)[number]) {
    const rootfs = join(scratch, img.operator);
    let layers = unpackedLayers.get(img.operator);
    if (!layers) {
      layers = (async () => {
        mkdirSync(rootfs);
        for (const layer of img.layers)
          await exec(['tar', '-xzf', blob(img.ociLayout, layer.digest), '-C', rootfs]);
      })();
      unpackedLayers.set(img.operator, layers);
    }
    await layers;
    const { config } = readLayout(img.ociLayout);
    // chroot: nothing from the host is visible, so node finds its libraries in the image or fails.
    const asUser =
      process.getuid?.() === 0
        ? ['/usr/sbin/chroot', `--userspec=${config.config.User}`, rootfs]
        : ['unshare', '--map-root-user', '/usr/sbin/chroot', rootfs];
    const env = Object.fromEntries((config.config.Env ?? []).map((e) => e.split(/=(.*)/s).slice(0, 2)));
    return { rootfs, config, asUser, env };
  }

  it("run the bundle's --help with the image's own node and libraries, as the image's user", async () => {
    for (const img of result.images) {
      const { config, asUser, env } = await unpacked(img);
      const help = await exec([...asUser, ...(config.config.Entrypoint ?? []), '--help'], { env });
      expect(help).toContain(`Usage: ${titleOf(img.operator)}`);
      const version = await exec([...asUser, '/usr/local/bin/node', '--version'], { env });
      expect(version.trim()).toBe(`v${result.base.node.version}`);
    }
  });

  it("start from the compile cache built for the image's node and user, writing nothing", async () => {
    for (const img of result.images) {
      const { config, asUser, env } = await unpacked(img);
      const argv = [...asUser, ...(config.config.Entrypoint ?? []), '--help'];
      // node's own trace of its compile cache goes to stderr.
      const trace = await exec(['/bin/sh', '-c', 'exec "$@" 2>&1', 'sh', ...argv], {
        env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      });
      expect(trace).toContain('/app/bundle/compile-cache/');
      expect(trace).toContain('V8 code cache for ESM file:///app/bundle/operator.mjs was accepted');
      expect(trace).not.toMatch(/was rejected|not initialized|Creating temporary file/);
    }
  });

  it('refuse LOG_FORMAT=pretty, which needs what the bundle leaves out, saying what to do instead', async () => {
    for (const img of result.images) {
      const { rootfs, config, asUser, env } = await unpacked(img);
      // Nothing listens there: the logger is made before the first request.
      writeFileSync(
        join(rootfs, 'kubeconfig'),
        'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n' +
          'users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
        { mode: 0o644 },
      );
      const run = exec([...asUser, ...(config.config.Entrypoint ?? []), '--kubeconfig=/kubeconfig'], {
        // OPERATOR_NAMESPACE: the four in one reads it (the chart sets it) before the logger.
        env: { ...env, LOG_FORMAT: 'pretty', OPERATOR_NAMESPACE: 'default' },
      });
      await expect(run).rejects.toThrow(
        /exited with 1\n.*LOG_FORMAT=pretty: this build prints JSON lines only .*pino-pretty/,
      );
    }
  });

  it('push to a registry with crane keeping their digests (how a release publishes them)', async () => {
    const crane = await locateCrane(() => {});
    const registry = await startRegistry(crane);
    try {
      for (const img of result.images) {
        const target = `${registry.host}/${img.name.slice(img.name.indexOf('/') + 1)}`;
        await crane.run(['push', img.ociLayout, target]);
        expect((await crane.run(['digest', target])).trim()).toBe(img.digest);
        // Full validation downloads and digests every layer: once is enough (they share the base).
        await crane.run(
          img === result.images[0]
            ? ['validate', '--remote', target]
            : ['validate', '--fast', '--remote', target],
        );
      }
    } finally {
      await registry.stop();
    }
  });

  it('are the same, digests and archives, when built again from nothing from the same commit', async () => {
    const again = await buildOperatorImages({
      outDir: join(scratch, 'again'),
      source: inject('imageSource'),
      progress: () => {},
    });
    process.stderr.write(`${summary(again)} (a second, cold build from an empty folder)\n`);
    expect(again.images.every((i) => !i.cached)).toBe(true);
    expect(again.images.map((i) => [i.name, i.digest])).toEqual(result.images.map((i) => [i.name, i.digest]));
    for (const [i, img] of again.images.entries()) {
      expect(await sha256FileHex(img.archive)).toBe(await sha256FileHex(result.images[i]!.archive));
    }
    // The arm64 images and the two-platform indexes too (their digests are what a registry serves).
    expect(again.arm64Images.map((i) => i.digest)).toEqual(result.arm64Images.map((i) => i.digest));
    expect(again.indexes.map((i) => i.digest)).toEqual(result.indexes.map((i) => i.digest));
    for (const [i, index] of again.indexes.entries()) {
      expect(await sha256FileHex(index.archive)).toBe(await sha256FileHex(result.indexes[i]!.archive));
    }
  });

  it('keep the base layer byte-identical for a later commit that does not touch the base', async () => {
    const source = inject('imageSource');
    const later = await buildOperatorImages({
      outDir: join(scratch, 'again'),
      source: { ...source, epoch: source.epoch + 3600 },
      progress: () => {},
    });
    for (const [i, img] of later.images.entries()) {
      expect(img.digest).not.toBe(result.images[i]!.digest);
      expect(img.layers[0]!.digest).toBe(result.images[i]!.layers[0]!.digest);
    }
    for (const [i, img] of later.arm64Images.entries()) {
      expect(img.layers[0]!.digest).toBe(result.arm64Images[i]!.layers[0]!.digest);
    }
  });
});
