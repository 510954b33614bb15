import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ensureQemuUser } from '../src/arm64.js';
import { locateCrane, startRegistry } from '../src/crane.js';
import { exec } from '../src/util/exec.js';

const result = inject('operatorImages');
const scratch = mkdtempSync(join(tmpdir(), 'images-arm64-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const blob = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
interface Descriptor {
  digest: string;
  mediaType: string;
  platform?: { os: string; architecture: string };
}

/** A 127.0.0.1 port nothing listens on: bound by the kernel's choice, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs `argv` until a line of its output matches `wanted` (then stops it) or it exits. */
function runUntil(argv: string[], env: NodeJS.ProcessEnv, wanted: RegExp, timeoutMs: number) {
  return new Promise<{ matched: boolean; output: string }>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const done = (matched: boolean) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve({ matched, output });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (wanted.test(output)) done(true);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => done(wanted.test(output)));
  });
}

describe('the linux/arm64 operator images', () => {
  it('are one index per operator over the amd64 and arm64 images', () => {
    for (const index of result.indexes) {
      const layout = index.ociLayout;
      const [top] = readJson<{ manifests: Descriptor[] }>(join(layout, 'index.json')).manifests;
      expect(top?.digest).toBe(index.digest);
      const { manifests } = readJson<{ manifests: Descriptor[] }>(blob(layout, index.digest));
      const amd64 = result.images.find((i) => i.operator === index.operator)!;
      const arm64 = result.arm64Images.find((i) => i.operator === index.operator)!;
      expect(manifests.map((m) => [m.platform, m.digest])).toEqual([
        [{ architecture: 'amd64', os: 'linux' }, amd64.digest],
        [{ architecture: 'arm64', os: 'linux' }, arm64.digest],
      ]);
      const manifest = readJson<{ config: Descriptor }>(blob(layout, arm64.digest));
      expect(readJson<{ architecture: string }>(blob(layout, manifest.config.digest)).architecture).toBe(
        'arm64',
      );
      // The app layer is the same bytes on both platforms; only the base differs.
      expect(arm64.layers[1]!.digest).toBe(amd64.layers[1]!.digest);
      expect(arm64.layers[0]!.digest).not.toBe(amd64.layers[0]!.digest);
    }
    expect(result.arm64Base.libraries).toContain('/lib/ld-linux-aarch64.so.1');
    expect(result.arm64Base.packages.every((p) => ['arm64', 'all'].includes(p.architecture))).toBe(true);
  });

  it('push as one multi-platform tag with crane, keeping the index digest (one operator: they share the bases)', async () => {
    const crane = await locateCrane(() => {});
    const registry = await startRegistry(crane);
    try {
      const index = result.indexes[0]!;
      const target = `${registry.host}/${index.name.slice(index.name.indexOf('/') + 1)}`;
      await crane.run(['push', index.ociLayout, target]);
      expect((await crane.run(['digest', target])).trim()).toBe(index.digest);
      const arm64 = result.arm64Images.find((i) => i.operator === index.operator)!;
      expect((await crane.run(['digest', '--platform', 'linux/arm64', target])).trim()).toBe(arm64.digest);
    } finally {
      await registry.stop();
    }
  });

  it("start under qemu-user with the image's own node and libraries and reach the API server", async () => {
    const qemu = await ensureQemuUser((line) => process.stderr.write(`${line}\n`));
    for (const img of result.arm64Images) {
      const rootfs = join(scratch, img.operator);
      mkdirSync(rootfs);
      for (const layer of img.layers)
        await exec(['tar', '-xzf', blob(img.ociLayout, layer.digest), '-C', rootfs]);
      const node = readFileSync(join(rootfs, 'usr/local/bin/node'));
      expect(node.readUInt16LE(18), 'ELF e_machine of node: EM_AARCH64').toBe(0xb7);
      copyFileSync(qemu, join(rootfs, 'qemu-aarch64-static'));
      const port = await closedPort();
      writeFileSync(
        join(rootfs, 'tmp/kubeconfig'),
        `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
      );
      const config = readJson<{ config: { Entrypoint: string[]; User: string; Env: string[] } }>(
        blob(img.ociLayout, img.configDigest),
      ).config;
      const env = {
        ...Object.fromEntries(config.Env.map((e) => e.split(/=(.*)/s).slice(0, 2))),
        KUBECONFIG: '/tmp/kubeconfig',
        // What the charts set from the pod's namespace (network-addons refuses to start without it).
        OPERATOR_NAMESPACE: 'stackops',
        HOME: '/home/nonroot',
      };
      // chroot: node finds only the image's arm64 libraries; qemu runs it on this amd64 host.
      const started = Date.now();
      const run = await runUntil(
        [
          '/usr/sbin/chroot',
          `--userspec=${config.User}`,
          rootfs,
          '/qemu-aarch64-static',
          ...config.Entrypoint,
        ],
        env,
        new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`),
        90_000,
      );
      process.stderr.write(
        `arm64 ${img.operator}: reached the API server after ${Date.now() - started} ms under qemu\n`,
      );
      expect(run.output).not.toMatch(/Exec format error|error while loading shared libraries/);
      expect(run.matched, run.output.slice(-2000)).toBe(true);
    }
  }, 400_000);
});
