/**
 * The generated files of the build: wrapper go.mod files and version-stamping ldflags. Pure
 * functions of the pinned versions (and of k8s.io/kubernetes' own go.mod), so they are unit-tested.
 */

/** k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging/src/…. */
export function stagingModules(upstreamGoMod: string): string[] {
  const found = new Set<string>();
  for (const match of upstreamGoMod.matchAll(/^\s*(k8s\.io\/[A-Za-z0-9._-]+)\s+=>\s+\.\/staging\/src\//gm)) {
    if (match[1]) found.add(match[1]);
  }
  return [...found].sort();
}

/** The `godebug` directive(s) of a go.mod, single-line or block form, verbatim. */
function godebugDirective(goMod: string): string | undefined {
  return /^godebug\s+\([\s\S]*?^\)/m.exec(goMod)?.[0] ?? /^godebug\s+.+$/m.exec(goMod)?.[0];
}

/**
 * A module that requires k8s.io/kubernetes and replaces each staging module with its published
 * v0.Y.Z tag (what k/k's replace lines would do if a dependency's replaces applied). The `go` and
 * `godebug` lines are copied, because GODEBUG defaults come from the main module.
 */
export function kubernetesWrapperGoMod(upstreamGoMod: string, kubernetesVersion: string): string {
  const goLine = /^go\s+\S+$/m.exec(upstreamGoMod)?.[0];
  if (!goLine) throw new Error('k8s.io/kubernetes go.mod has no go directive');
  const modules = stagingModules(upstreamGoMod);
  if (modules.length === 0) throw new Error('k8s.io/kubernetes go.mod lists no ./staging/src replace lines');
  const stagingVersion = kubernetesVersion.replace(/^v1\./, 'v0.');
  const godebug = godebugDirective(upstreamGoMod);
  return [
    'module local/kube-env/kubernetes',
    '',
    goLine,
    ...(godebug ? ['', godebug] : []),
    '',
    `require k8s.io/kubernetes ${kubernetesVersion}`,
    '',
    'replace (',
    ...modules.map((m) => `\t${m} => ${m} ${stagingVersion}`),
    ')',
    '',
  ].join('\n');
}

/** The etcd server module has replace lines too, so it is built from a wrapper that requires it. */
export function etcdWrapperGoMod(etcdVersion: string, goVersion: string): string {
  return [
    'module local/kube-env/etcd',
    '',
    `go ${goVersion}`,
    '',
    `require go.etcd.io/etcd/server/v3 ${etcdVersion}`,
    '',
  ].join('\n');
}

/** A tools.go that keeps the given main packages in the wrapper's module graph through `go mod tidy`. */
export function toolsGo(packages: readonly string[]): string {
  return [
    '//go:build tools',
    '',
    'package tools',
    '',
    'import (',
    ...packages.map((p) => `\t_ "${p}"`),
    ')',
    '',
  ].join('\n');
}

/**
 * -X flags that make `/version` and `kubectl version` report the real version instead of
 * v0.0.0-master (helm charts with a kubeVersion constraint depend on it). The build date is fixed
 * so that the binaries are reproducible.
 */
export function kubernetesLdflags(kubernetesVersion: string): string {
  const match = /^v(\d+)\.(\d+)\./.exec(kubernetesVersion);
  if (!match) throw new Error(`not a Kubernetes version: ${kubernetesVersion}`);
  const [, major, minor] = match;
  const flags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    flags.push(
      `-X ${pkg}.gitVersion=${kubernetesVersion}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.buildDate=2000-01-01T00:00:00Z`,
    );
  }
  return flags.join(' ');
}

/**
 * helm's version, and the Kubernetes version it assumes when no cluster is asked (`helm template`,
 * `helm lint`): its Makefile sets these from its client-go; without them charts with a
 * `kubeVersion: >=1.29` constraint fail to render offline, since helm would claim Kubernetes 1.20.
 */
export function helmLdflags(helmVersion: string, kubernetesVersion: string): string {
  const [major, minor] = kubernetesVersion.replace(/^v/, '').split('.');
  const flags = ['-s -w', `-X helm.sh/helm/v3/internal/version.version=${helmVersion}`];
  for (const pkg of ['helm.sh/helm/v3/pkg/chartutil', 'helm.sh/helm/v3/pkg/lint/rules']) {
    flags.push(`-X ${pkg}.k8sVersionMajor=${major}`, `-X ${pkg}.k8sVersionMinor=${minor}`);
  }
  return flags.join(' ');
}

/** crane reads its version from the build info too; the ldflag makes it explicit and independent of how it was built. */
export function craneLdflags(craneVersion: string): string {
  return `-s -w -X github.com/google/go-containerregistry/cmd/crane/cmd.Version=${craneVersion}`;
}

/** The CoreDNS plugins the real node's Corefile uses; the others (cloud DNS back ends, …) are left out of the build. */
const corednsPlugins = [
  'bind',
  'cache',
  'errors',
  'health',
  'kubernetes',
  'loadbalance',
  'log',
  'ready',
] as const;

/** A module whose main is CoreDNS's own `coremain.Run` with only `corednsPlugins` registered. */
export function corednsWrapperGoMod(upstreamGoMod: string, corednsVersion: string): string {
  const goLine = /^go\s+\S+$/m.exec(upstreamGoMod)?.[0];
  if (!goLine) throw new Error('github.com/coredns/coredns go.mod has no go directive');
  return [
    'module local/kube-env/coredns',
    '',
    goLine,
    '',
    `require github.com/coredns/coredns ${corednsVersion}`,
    '',
  ].join('\n');
}

export function corednsMainGo(plugins: readonly string[] = corednsPlugins): string {
  return [
    '// Generated by kube-env: CoreDNS with only the plugins the real node needs.',
    'package main',
    '',
    'import (',
    '\t"github.com/coredns/coredns/coremain"',
    '',
    ...plugins.map((p) => `\t_ "github.com/coredns/coredns/plugin/${p}"`),
    ')',
    '',
    'func main() {',
    '\tcoremain.Run()',
    '}',
    '',
  ].join('\n');
}
