#!/usr/bin/env bash
# Puts kuttl and upstream's kuttl suites into the cache (never into the repository):
#   $CACHE/kuttl-<version>/kubectl-kuttl
#   $CACHE/suites/<repo>-<commit>/{kuttl-test.yaml,test/kuttl,config/samples}
#   $CACHE/suites/install_yamls-<commit>/scripts/gen-{input-kustomize,secrets}.sh (osp-secret's keys)
# Usage: tools/upstream-suites/fetch.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=upstream.env
. "$here/upstream.env"
# Stored snapshots of upstream's repositories (the `fetch` tool of this machine puts them there).
MIRROR=${UPSTREAM_MIRROR:-/work/.mirror}
mkdir -p "$CACHE"

kuttl="$CACHE/kuttl-$KUTTL_VERSION/kubectl-kuttl"
if [ ! -x "$kuttl" ]; then
  echo "building kuttl $KUTTL_VERSION from the Go module proxy"
  src=$(mktemp -d)
  # A throw-away module requiring the pinned tag (`go install …@tag` also asks the proxy for the
  # module's version list, which it refuses). kuttl's source is the proxy's, plus one file: Go ≥ 1.25's
  # testing.MainStart calls ModulePath, which kuttl's testDeps lacks (every release up to v0.24.0
  # fails to compile with this machine's Go otherwise); it returns "", as testing's own
  # matchStringOnly does.
  printf 'module stackops.dev/upstream-suites/kuttl\n\ngo 1.23\n\nrequire github.com/kudobuilder/kuttl %s\n\nreplace github.com/kudobuilder/kuttl => ./kuttl\n' \
    "$KUTTL_VERSION" >"$src/go.mod"
  dir=$(cd "$src" && GOFLAGS=-mod=mod go mod download -json "github.com/kudobuilder/kuttl@$KUTTL_VERSION" | jq -r .Dir)
  cp -r "$dir" "$src/kuttl"
  chmod -R u+w "$src/kuttl"
  printf 'package utils\n\n// Go 1.25+ testing.MainStart also calls ModulePath on its deps.\nfunc (testDeps) ModulePath() string { return "" }\n' \
    >"$src/kuttl/pkg/test/utils/zz_stackops_modulepath.go"
  mkdir -p "$(dirname "$kuttl")"
  (cd "$src" && GOFLAGS=-mod=mod go build -o "$kuttl" github.com/kudobuilder/kuttl/cmd/kubectl-kuttl)
  rm -rf "$src"
fi
echo "kuttl: $kuttl"

export_suite() { # repo commit paths...
  local repo=$1 commit=$2
  shift 2
  local dest="$CACHE/suites/$repo-$commit"
  [ -d "$dest" ] && return 0
  local git="$MIRROR/openstack-k8s-operators+$repo/repo"
  if [ ! -d "$git" ]; then
    echo "no snapshot of openstack-k8s-operators/$repo in $MIRROR (set UPSTREAM_MIRROR)" >&2
    exit 1
  fi
  mkdir -p "$dest.tmp"
  git -C "$git" archive "$commit" "$@" | tar -x -C "$dest.tmp"
  mv "$dest.tmp" "$dest"
  echo "suite $repo@$commit -> $dest"
}
export_suite keystone-operator "$KEYSTONE_OPERATOR_COMMIT" kuttl-test.yaml test/kuttl config/samples
export_suite placement-operator "$PLACEMENT_OPERATOR_COMMIT" kuttl-test.yaml test/kuttl config/samples
export_suite install_yamls "$INSTALL_YAMLS_COMMIT" scripts/gen-input-kustomize.sh scripts/gen-secrets.sh
