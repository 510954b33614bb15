import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import type { CacheLayout } from '../paths.js';
import { run } from '../util/run.js';
import { kwokStages, minimumGo, versions } from '../versions.js';
import { downloadModule, goEnv } from './go.js';
import {
  corednsMainGo,
  corednsWrapperGoMod,
  craneLdflags,
  etcdWrapperGoMod,
  helmLdflags,
  kubernetesLdflags,
  kubernetesWrapperGoMod,
  toolsGo,
} from './recipes.js';

interface BuildContext {
  readonly layout: CacheLayout;
  readonly logFile: string;
}

/** One line of progress: a thing that is built (or prepared) and the binaries it leaves in bin/. */
export interface BuildStep {
  readonly name: string;
  readonly version: string;
  /** Files it leaves, relative to the cache root; the step is skipped when all exist (after an interrupted build). */
  readonly outputs: readonly string[];
  run(ctx: BuildContext): Promise<void>;
}

const kubernetesCommands = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
  'kubelet',
  'kube-proxy',
] as const;

/** Builds a main package of a wrapper module to bin/<name>, via a temporary file so a kill leaves no half binary. */
async function goBuild(
  ctx: BuildContext,
  moduleDir: string,
  pkg: string,
  name: string,
  ldflags: string,
): Promise<void> {
  const target = join(ctx.layout.bin, name);
  await run(['go', 'build', '-trimpath', '-ldflags', ldflags, '-o', `${target}.tmp`, pkg], {
    cwd: moduleDir,
    env: goEnv(),
    logFile: ctx.logFile,
  });
  renameSync(`${target}.tmp`, target);
}

/** `go install pkg@version` (for modules without replace directives) into bin/<name>. */
async function goInstall(
  ctx: BuildContext,
  pkgAtVersion: string,
  name: string,
  ldflags: string,
): Promise<void> {
  const gobin = join(ctx.layout.src, 'gobin');
  mkdirSync(gobin, { recursive: true });
  await run(['go', 'install', '-trimpath', '-ldflags', ldflags, pkgAtVersion], {
    cwd: ctx.layout.src,
    env: goEnv({ GOBIN: gobin }),
    logFile: ctx.logFile,
  });
  renameSync(join(gobin, name), join(ctx.layout.bin, name));
}

function writeIfChanged(path: string, content: string): void {
  if (existsSync(path) && readFileSync(path, 'utf8') === content) return;
  writeFileSync(path, content);
}

/** go.mod + tools.go + `go mod tidy` in <cache>/src/<name>. */
async function prepareWrapper(
  ctx: BuildContext,
  name: string,
  goMod: string,
  packages: readonly string[],
): Promise<string> {
  const dir = join(ctx.layout.src, name);
  mkdirSync(dir, { recursive: true });
  writeIfChanged(join(dir, 'go.mod'), goMod);
  writeIfChanged(join(dir, 'tools.go'), toolsGo(packages));
  await run(['go', 'mod', 'tidy'], { cwd: dir, env: goEnv(), logFile: ctx.logFile });
  return dir;
}

const etcdStep: BuildStep = {
  name: 'etcd',
  version: versions.etcd,
  outputs: ['bin/etcd'],
  async run(ctx) {
    const pkg = 'go.etcd.io/etcd/server/v3';
    const dir = await prepareWrapper(ctx, 'etcd', etcdWrapperGoMod(versions.etcd, minimumGo), [pkg]);
    await goBuild(ctx, dir, pkg, 'etcd', '-s -w');
  },
};

/** kwok, plus the stage YAMLs from its module source (they are not embedded in the binary in a usable form). */
const kwokStep: BuildStep = {
  name: 'kwok',
  version: versions.kwok,
  outputs: ['bin/kwok'],
  async run(ctx) {
    await goInstall(ctx, `sigs.k8s.io/kwok/cmd/kwok@${versions.kwok}`, 'kwok', '-s -w');
  },
};

const kwokStagesStep: BuildStep = {
  name: 'kwok stages',
  version: versions.kwok,
  outputs: kwokStages.map((stage) => `stages/${basename(stage)}`),
  async run(ctx) {
    const { dir } = await downloadModule('sigs.k8s.io/kwok', versions.kwok, ctx.layout.src, ctx.logFile);
    mkdirSync(ctx.layout.stages, { recursive: true });
    for (const stage of kwokStages) {
      const target = join(ctx.layout.stages, basename(stage));
      copyFileSync(join(dir, 'kustomize', 'stage', stage), target);
      chmodSync(target, 0o644); // the module cache is read-only; keep our copy writable for the next build
    }
  },
};

const kubernetesModulesStep: BuildStep = {
  name: 'kubernetes modules',
  version: versions.kubernetes,
  outputs: kubernetesCommands.map((c) => `bin/${c}`),
  async run(ctx) {
    const { goMod } = await downloadModule(
      'k8s.io/kubernetes',
      versions.kubernetes,
      ctx.layout.src,
      ctx.logFile,
    );
    const wrapper = kubernetesWrapperGoMod(readFileSync(goMod, 'utf8'), versions.kubernetes);
    await prepareWrapper(
      ctx,
      'kubernetes',
      wrapper,
      kubernetesCommands.map((c) => `k8s.io/kubernetes/cmd/${c}`),
    );
  },
};

function kubernetesStep(command: (typeof kubernetesCommands)[number]): BuildStep {
  return {
    name: command,
    version: versions.kubernetes,
    outputs: [`bin/${command}`],
    async run(ctx) {
      await goBuild(
        ctx,
        join(ctx.layout.src, 'kubernetes'),
        `k8s.io/kubernetes/cmd/${command}`,
        command,
        kubernetesLdflags(versions.kubernetes),
      );
    },
  };
}

const helmStep: BuildStep = {
  name: 'helm',
  version: versions.helm,
  outputs: ['bin/helm'],
  async run(ctx) {
    await goInstall(
      ctx,
      `helm.sh/helm/v3/cmd/helm@${versions.helm}`,
      'helm',
      helmLdflags(versions.helm, versions.kubernetes),
    );
  },
};

const craneStep: BuildStep = {
  name: 'crane',
  version: versions.crane,
  outputs: ['bin/crane'],
  async run(ctx) {
    await goInstall(
      ctx,
      `github.com/google/go-containerregistry/cmd/crane@${versions.crane}`,
      'crane',
      craneLdflags(versions.crane),
    );
  },
};

const corednsStep: BuildStep = {
  name: 'coredns',
  version: versions.coredns,
  outputs: ['bin/coredns'],
  async run(ctx) {
    const { goMod } = await downloadModule(
      'github.com/coredns/coredns',
      versions.coredns,
      ctx.layout.src,
      ctx.logFile,
    );
    const dir = join(ctx.layout.src, 'coredns');
    mkdirSync(dir, { recursive: true });
    writeIfChanged(join(dir, 'go.mod'), corednsWrapperGoMod(readFileSync(goMod, 'utf8'), versions.coredns));
    writeIfChanged(join(dir, 'main.go'), corednsMainGo());
    await run(['go', 'mod', 'tidy'], { cwd: dir, env: goEnv(), logFile: ctx.logFile });
    await goBuild(ctx, dir, '.', 'coredns', '-s -w');
  },
};

/**
 * In build order: crane and helm first, for the image and release builds `make test` runs beside a
 * cold build (`ensureBinary` hands out a binary as soon as it is in place); then the small ones,
 * so a broken toolchain or proxy shows up early.
 */
export const buildSteps: readonly BuildStep[] = [
  craneStep,
  helmStep,
  etcdStep,
  kwokStep,
  kwokStagesStep,
  kubernetesModulesStep,
  ...kubernetesCommands.map(kubernetesStep),
  corednsStep,
];

/** How each binary reports its version, and the text that proves it is the pinned one. */
export const versionChecks: ReadonlyArray<{ binary: string; args: string[]; expect: string }> = [
  { binary: 'etcd', args: ['--version'], expect: versions.etcd.replace(/^v/, '') },
  { binary: 'kube-apiserver', args: ['--version'], expect: versions.kubernetes },
  { binary: 'kube-controller-manager', args: ['--version'], expect: versions.kubernetes },
  { binary: 'kube-scheduler', args: ['--version'], expect: versions.kubernetes },
  { binary: 'kubectl', args: ['version', '--client'], expect: versions.kubernetes },
  { binary: 'kwok', args: ['--version'], expect: versions.kwok.replace(/^v/, '') },
  { binary: 'helm', args: ['version', '--short'], expect: versions.helm },
  { binary: 'kubelet', args: ['--version'], expect: versions.kubernetes },
  { binary: 'kube-proxy', args: ['--version'], expect: versions.kubernetes },
  { binary: 'crane', args: ['version'], expect: versions.crane },
  { binary: 'coredns', args: ['-version'], expect: `CoreDNS-${versions.coredns.replace(/^v/, '')}` },
];
