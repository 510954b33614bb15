import { describe, expect, it } from 'vitest';
import {
  corednsMainGo,
  corednsWrapperGoMod,
  craneLdflags,
  etcdWrapperGoMod,
  helmLdflags,
  kubernetesLdflags,
  kubernetesWrapperGoMod,
  stagingModules,
  toolsGo,
} from './recipes.js';

const upstream = `module k8s.io/kubernetes

go 1.24.0

godebug default=go1.24

require (
	k8s.io/api v0.0.0
	k8s.io/client-go v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	k8s.io/kube-aggregator => ./staging/src/k8s.io/kube-aggregator
	github.com/example/thing => github.com/example/thing v1.2.3
)
`;

describe('kubernetesWrapperGoMod', () => {
  it('replaces exactly the staging modules with their published v0 tags', () => {
    expect(stagingModules(upstream)).toEqual(['k8s.io/api', 'k8s.io/client-go', 'k8s.io/kube-aggregator']);
    const mod = kubernetesWrapperGoMod(upstream, 'v1.34.4');
    expect(mod).toContain('require k8s.io/kubernetes v1.34.4');
    expect(mod).toContain('\tk8s.io/api => k8s.io/api v0.34.4\n');
    expect(mod).toContain('\tk8s.io/kube-aggregator => k8s.io/kube-aggregator v0.34.4\n');
    expect(mod).not.toContain('github.com/example/thing');
  });

  it('copies the go and godebug directives, since GODEBUG defaults follow the main module', () => {
    const mod = kubernetesWrapperGoMod(upstream, 'v1.34.4');
    expect(mod).toMatch(/^go 1\.24\.0$/m);
    expect(mod).toMatch(/^godebug default=go1\.24$/m);
    const block = upstream.replace(
      'godebug default=go1.24',
      'godebug (\n\tdefault=go1.24\n\tx509negativeserial=1\n)',
    );
    expect(kubernetesWrapperGoMod(block, 'v1.34.4')).toContain(
      'godebug (\n\tdefault=go1.24\n\tx509negativeserial=1\n)',
    );
  });

  it('refuses a go.mod without staging replaces instead of producing an unbuildable module', () => {
    expect(() => kubernetesWrapperGoMod('module x\n\ngo 1.24.0\n', 'v1.34.4')).toThrow(/staging/);
  });
});

describe('ldflags', () => {
  it('stamps both version packages with the full version, major and minor', () => {
    const flags = kubernetesLdflags('v1.34.4');
    for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
      expect(flags).toContain(`-X ${pkg}.gitVersion=v1.34.4`);
      expect(flags).toContain(`-X ${pkg}.gitMajor=1`);
      expect(flags).toContain(`-X ${pkg}.gitMinor=34`);
    }
    expect(() => kubernetesLdflags('1.34')).toThrow();
    const helmFlags = helmLdflags('v3.19.5', 'v1.34.4');
    expect(helmFlags).toContain('helm.sh/helm/v3/internal/version.version=v3.19.5');
    // `helm template` must assume the Kubernetes we run, not helm's compiled-in 1.20.
    expect(helmFlags).toContain('-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1');
    expect(helmFlags).toContain('-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=34');
  });
});

describe('etcd wrapper and tools.go', () => {
  it('requires the etcd server module at the pinned version', () => {
    expect(etcdWrapperGoMod('v3.6.16', '1.26.0')).toBe(
      'module local/kube-env/etcd\n\ngo 1.26.0\n\nrequire go.etcd.io/etcd/server/v3 v3.6.16\n',
    );
  });

  it('imports each main package behind the tools build tag', () => {
    expect(toolsGo(['a/b', 'c/d'])).toBe(
      '//go:build tools\n\npackage tools\n\nimport (\n\t_ "a/b"\n\t_ "c/d"\n)\n',
    );
  });
});

describe('craneLdflags', () => {
  it('stamps the pinned version into crane', () => {
    expect(craneLdflags('v0.22.1')).toContain(
      '-X github.com/google/go-containerregistry/cmd/crane/cmd.Version=v0.22.1',
    );
  });
});

describe('CoreDNS wrapper', () => {
  it('requires the pinned module with its go directive', () => {
    const goMod = corednsWrapperGoMod(
      'module github.com/coredns/coredns\n\ngo 1.25.0\n\nrequire (\n)\n',
      'v1.14.7',
    );
    expect(goMod).toContain('\ngo 1.25.0\n');
    expect(goMod).toContain('require github.com/coredns/coredns v1.14.7');
  });

  it("runs CoreDNS's own main with only the listed plugins", () => {
    const main = corednsMainGo(['kubernetes', 'cache']);
    expect(main).toContain('coremain.Run()');
    expect(main).toContain('_ "github.com/coredns/coredns/plugin/kubernetes"');
    expect(main).toContain('_ "github.com/coredns/coredns/plugin/cache"');
    expect(main).not.toContain('core/plugin"');
  });
});
