/**
 * The one place where the control plane's versions are pinned. Changing anything here changes
 * the cache key, so the next `kube-env build` builds into a fresh directory.
 */
export const versions = {
  /** kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, and the real node's kubelet and kube-proxy. */
  kubernetes: 'v1.34.4',
  /** 1.34 pairs with etcd 3.6 (kubeadm's table); 3.6.16's go.mod needs Go 1.26. */
  etcd: 'v3.6.16',
  /** 0.7.x still falls back to default stages; we pass explicit ones anyway. */
  kwok: 'v0.7.0',
  helm: 'v3.19.5',
  /** go-containerregistry's crane: the OCI plumbing of tools/images (append, mutate, pull, push). */
  crane: 'v0.22.1',
  /** The real node's cluster DNS, built with only the plugins its Corefile uses. */
  coredns: 'v1.14.7',
} as const;

/** The highest `go` directive among the modules built (etcd server v3.6.16 says `go 1.26.0`). */
export const minimumGo = '1.26.0';

/**
 * Bumped when the build recipe changes in a way that changes the binaries (flags, stages copied,
 * …), so that old caches are not mistaken for new ones.
 */
export const recipeRevision = 3;

/** The kwok stages copied from kwok's module source at build time (paths under kustomize/stage/). */
export const kwokStages = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
] as const;

/** Names the binaries, the versions and the recipe: `k8s1.34.4-etcd3.6.16-kwok0.7.0-helm3.19.5-crane0.22.1-coredns1.14.7-r3`. */
export function cacheKey(): string {
  const v = (s: string) => s.replace(/^v/, '');
  return [
    `k8s${v(versions.kubernetes)}`,
    `etcd${v(versions.etcd)}`,
    `kwok${v(versions.kwok)}`,
    `helm${v(versions.helm)}`,
    `crane${v(versions.crane)}`,
    `coredns${v(versions.coredns)}`,
    `r${recipeRevision}`,
  ].join('-');
}
