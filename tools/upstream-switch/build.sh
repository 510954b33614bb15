#!/usr/bin/env bash
# Builds upstream's keystone-operator and placement-operator from their Go sources at the commits
# tools/upstream-suites/upstream.env pins, and packs each as an image the real node can import:
#   $CACHE/bin/<operator>-<commit>            the manager binary (static, CGO_ENABLED=0)
#   $CACHE/images/<operator>-<commit>.tar     image `localhost/upstream/<operator>:<commit12>`
# Usage: tools/upstream-switch/build.sh [keystone-operator|placement-operator]   (default: both)
# Sources: `git archive` of the stored snapshots in /work/.mirror (UPSTREAM_MIRROR), as
# tools/upstream-suites/fetch.sh takes the suites; dependencies from the Go module proxy. A module
# version the proxy refuses (403) is taken from the mirror at the commit its pseudo-version names
# and put in place with a versioned `replace` (README, "Refused modules").
# Sourced (e.g. by tools/bench/go-side-by-side.sh) it only defines the functions and paths.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../upstream-suites/upstream.env
. "$here/../upstream-suites/upstream.env"
MIRROR=${UPSTREAM_MIRROR:-/work/.mirror}
OUT=${UPSTREAM_SWITCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackops/upstream-switch}
repo=$(cd "$here/../.." && pwd)
log() { echo "[build $(date -u +%H:%M:%S)] $*"; }
mkdir -p "$OUT/src" "$OUT/deps" "$OUT/bin" "$OUT/images"

snapshot() { # repo (name under openstack-k8s-operators, or owner/name) → the mirror's git directory
  local r=$1
  [[ $r == */* ]] || r=openstack-k8s-operators/$r
  local git="$MIRROR/${r/\//+}/repo"
  [ -d "$git" ] || { echo "no snapshot of $r in $MIRROR (set UPSTREAM_MIRROR)" >&2; exit 1; }
  echo "$git"
}
export_tree() { # repo commit dest [paths...]
  local r=$1 c=$2 dest=$3
  shift 3
  [ -d "$dest" ] && return 0
  mkdir -p "$dest.tmp"
  git -C "$(snapshot "$r")" archive "$c" "$@" | tar -x -C "$dest.tmp"
  mv "$dest.tmp" "$dest"
}
# The whole tree at a commit, leaving out the files whose content the snapshot does not hold (its
# largest blobs may be absent, and `git archive` stops at the first): through an index of our own,
# so nothing is written into the mirror. Prints each file left out.
export_tree_present() { # repo commit dest
  local git c=$2 dest=$3 index absent
  [ -d "$dest" ] && return 0
  git=$(snapshot "$1")
  index=$(mktemp -u)
  absent=$(git -C "$git" ls-tree -r "$c" | awk '$2 == "blob" { print $3 }' |
    git -C "$git" cat-file --batch-check='%(objectname) %(objecttype)' 2>/dev/null | awk '$2 == "missing" { print $1 }')
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  local in=(git --git-dir="$git" --work-tree="$dest.tmp")
  GIT_INDEX_FILE=$index "${in[@]}" read-tree "$c"
  for blob in $absent; do
    local path
    path=$(git -C "$git" ls-tree -r "$c" | awk -v b="$blob" '$3 == b { print $4 }')
    log "$1@${c:0:12}: left out (absent from the snapshot): $path"
    GIT_INDEX_FILE=$index "${in[@]}" update-index --force-remove -- "$path"
  done
  GIT_INDEX_FILE=$index "${in[@]}" checkout-index -a
  rm -f "$index"
  mv "$dest.tmp" "$dest"
}

# Every module version the proxy refuses: `go mod download` names each as
# "reading https://proxy.golang.org/<module>/@v/<version>.<info|mod|zip>: 403 Forbidden".
replace_refused() { # src dir; loops until the proxy serves all that is left
  local src=$1 round refused line module version commit r sub dest
  for round in 1 2 3 4 5 6 7 8; do
    # `go mod download` alone misses zips only a build reads; `go list -deps` of the command reads them.
    refused=$(cd "$src" && { GOFLAGS=-mod=mod go mod download; GOFLAGS=-mod=mod go list -deps ./cmd >/dev/null; } 2>&1 |
      sed -n 's#.*proxy\.golang\.org/\(github\.com/openstack-k8s-operators/[^ ]*\)/@v/\([^ ]*\)\.\(info\|mod\|zip\): 403.*#\1 \2#p' | sort -u || true)
    [ -z "$refused" ] && return 0
    while read -r module version; do
      commit=${version##*-}
      r=${module#github.com/openstack-k8s-operators/}
      sub=${r#*/}
      r=${r%%/*}
      dest="$OUT/deps/$r-$commit-${sub//\//_}"
      log "proxy refused $module@$version: $r@$commit:$sub from the mirror"
      export_tree "$r" "$commit" "$dest" "$sub"
      (cd "$src" && go mod edit -replace "$module@$version=$dest/$sub")
    done <<<"$refused"
  done
  echo "modules still refused after $round rounds in $src" >&2
  exit 1
}

# The manager binary of an operator whose sources export_tree put in $src (cached by path): a
# vendored tree builds from vendor/ alone, otherwise the modules come from the proxy (and the mirror).
build_binary() { # src bin [package]
  local src=$1 bin=$2 pkg=${3:-./cmd} mod=mod t0=$SECONDS
  [ -x "$bin" ] && { log "$(basename "$bin"): cached"; return 0; }
  if [ -f "$src/vendor/modules.txt" ]; then mod=vendor; else replace_refused "$src"; fi
  log "$(basename "$bin"): go build $pkg (-mod=$mod)"
  # GOGC=400 as kube-env's builds (ADR 0066): about a fifth less CPU for a cold build.
  (cd "$src" && CGO_ENABLED=0 GOGC=${GOGC:-400} GOFLAGS=-mod=$mod go build -o "$bin.tmp" "$pkg")
  mv "$bin.tmp" "$bin"
  log "$(basename "$bin"): built in $((SECONDS - t0)) s, $(du -m "$bin" | cut -f1) MiB"
}

build() { # operator commit
  local op=$1 commit=$2 short=${2:0:12}
  local src="$OUT/src/$op-$commit" bin="$OUT/bin/$op-$commit" image="$OUT/images/$op-$commit.tar"
  [ -f "$image" ] && { log "$op@$short: $image (cached)"; return 0; }
  export_tree "$op" "$commit" "$src"
  build_binary "$src" "$bin"
  # One layer, as upstream's Dockerfile lays it out: /manager and the templates under
  # /usr/share/<operator>/templates (the Deployment sets OPERATOR_TEMPLATES, command and user).
  local root
  root=$(mktemp -d)
  install -D -m 0755 "$bin" "$root/manager"
  mkdir -p "$root/usr/share/$op"
  cp -r "$src/templates" "$root/usr/share/$op/templates"
  tar -C "$root" --owner=0 --group=0 --numeric-owner --sort=name --mtime=@0 -cf "$root.tar" .
  # Assembled in a loopback registry (crane's mutate reads and writes only registries): the layer on
  # an empty base, then the platform (ctr's import skips an image without one) and the config
  # upstream's Dockerfile sets; pulled as an archive named as the Deployment names it.
  local ref="$registry/upstream/$op:$short"
  "$crane" append --oci-empty-base -f "$root.tar" -t "$ref" >/dev/null
  "$crane" mutate --set-platform linux/amd64 --entrypoint /manager --user 65532 -w / \
    -e "OPERATOR_TEMPLATES=/usr/share/$op/templates/" -t "$ref" "$ref" >/dev/null
  "$crane" pull "$ref" "$image.tmp"
  # The archive's tag is the loopback registry's; `localhost/upstream/...` is what the Deployment names.
  rm -rf "$root.d" && mkdir "$root.d" && tar -C "$root.d" -xf "$image.tmp"
  jq --arg n "localhost/upstream/$op:$short" '.[0].RepoTags = [$n]' "$root.d/manifest.json" >"$root.d/m" && mv "$root.d/m" "$root.d/manifest.json"
  tar -C "$root.d" -cf "$image.tmp" . && rm -rf "$root.d"
  mv "$image.tmp" "$image"
  rm -rf "$root" "$root.tar"
  log "$op@$short: image localhost/upstream/$op:$short -> $image"
}

# The loopback registry the images are assembled in (stopped on exit), and kube-env's crane.
start_registry() {
  crane=$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/stackops/kube-env/*/bin/crane 2>/dev/null | head -1)
  [ -x "$crane" ] || crane=$(node -e "import('$repo/tools/kube-env/dist/index.js').then(async (m) => console.log(await m.ensureBinary('crane', {})))")
  regdir=$(mktemp -d)
  "$crane" registry serve --address 127.0.0.1:0 2>"$regdir/log" &
  regpid=$!
  trap 'kill $regpid 2>/dev/null; rm -rf "$regdir"' EXIT
  for _ in $(seq 50); do
    registry=$(sed -n 's/.*serving on port \([0-9]*\).*/127.0.0.1:\1/p' "$regdir/log")
    [ -n "$registry" ] && break
    sleep 0.2
  done
  [ -n "$registry" ] || { cat "$regdir/log" >&2; exit 1; }
}

# The stand-in Keystone and Placement images with kolla's extend_start behaviour for httpd: upstream's
# kolla config runs `/usr/sbin/httpd` with no arguments and relies on the TCIB image's
# kolla_extend_start adding `-DFOREGROUND` (kolla's keystone and placement start scripts do);
# the stand-in's kolla_extend_start is empty, so httpd daemonizes and the container exits 0.
# stackops' operators say `-DFOREGROUND` themselves. One layer on top, same tag plus `-fg`.
foreground() { # workload (keystone|placement)
  local name dir ref out root
  name=$(node -p "require('$repo/build/images/workloads.json').images['$1'].name")
  dir="$repo/build/images/${name%:*}/${name##*:}/oci"
  out="$OUT/images/$1-fg.tar"
  [ -f "$out" ] && { log "$1: $out (cached)"; return 0; }
  ref="$registry/upstream-switch/$1:fg"
  "$crane" push "$dir" "$ref" >/dev/null
  root=$(mktemp -d)
  install -D -m 0755 /dev/stdin "$root/usr/local/bin/kolla_extend_start" <<'SH'
# tools/upstream-switch: kolla's httpd start (ARGS -DFOREGROUND when the command is httpd alone).
if [[ ${CMD} == /usr/sbin/httpd ]]; then ARGS="-DFOREGROUND"; fi
SH
  tar -C "$root" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$root.tar" .
  "$crane" append -b "$ref" -f "$root.tar" -t "$ref" >/dev/null
  "$crane" pull "$ref" "$out.tmp"
  rm -rf "$root.d" && mkdir "$root.d" && tar -C "$root.d" -xf "$out.tmp"
  jq --arg n "$name-fg" '.[0].RepoTags = [$n]' "$root.d/manifest.json" >"$root.d/m" && mv "$root.d/m" "$root.d/manifest.json"
  tar -C "$root.d" -cf "$out.tmp" . && rm -rf "$root.d" "$root" "$root.tar"
  mv "$out.tmp" "$out"
  log "$1: image $name-fg -> $out"
}

[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0
start_registry
case ${1:-all} in
  foreground) foreground keystone && foreground placement ;;
  keystone-operator) build keystone-operator "$KEYSTONE_OPERATOR_COMMIT" ;;
  placement-operator) build placement-operator "$PLACEMENT_OPERATOR_COMMIT" ;;
  all)
    build keystone-operator "$KEYSTONE_OPERATOR_COMMIT"
    build placement-operator "$PLACEMENT_OPERATOR_COMMIT"
    foreground keystone
    foreground placement
    ;;
  *) echo "usage: build.sh [keystone-operator|placement-operator]" >&2 && exit 2 ;;
esac
