#!/usr/bin/env bash
# Builds one layer of the stand-in workload images into <out>/tree (needs root).
#
#   build-layer.sh base  <out> <mmdebstrap-dir>
#       a minimal Debian root (mmdebstrap), then layers/base applied in a chroot
#   build-layer.sh <layer> <out> <lower-tree>... [--wheels <dir>]
#       layers/<layer> applied in a chroot on an overlay of the lower trees (lowest first); the
#       overlay's upper directory is the layer (overlay whiteouts stay as they are: tar-layer.py
#       turns them into OCI whiteouts)
#
# A layer directory holds: `packages` (Debian packages to install, one per line), `files/` (copied
# onto the root first, owned by root), `recipe.sh` (run in the chroot as root, from /). The chroot
# sees the host's network for apt only; service starts are refused (policy-rc.d).
# Writes <out>/tree, <out>/debs.txt (the root's Debian packages and versions after the layer) and,
# with --wheels, <out>/wheels.txt. SOURCE_DATE_EPOCH must be set (timestamps, shadow dates, pyc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
layer=${1:?usage: build-layer.sh <layer> <out> ...}
out=${2:?usage: build-layer.sh <layer> <out> ...}
shift 2
: "${SOURCE_DATE_EPOCH:?SOURCE_DATE_EPOCH must be set}"
[[ $(id -u) -eq 0 ]] || { echo "build-layer.sh: must run as root (chroot, mounts)" >&2; exit 2; }
def="$here/layers/$layer"
[[ -d "$def" ]] || { echo "build-layer.sh: no layer $def" >&2; exit 2; }

DEBIAN_SUITE=bookworm
SOURCES=(
  "deb http://deb.debian.org/debian $DEBIAN_SUITE main"
  "deb http://deb.debian.org/debian $DEBIAN_SUITE-updates main"
  "deb http://deb.debian.org/debian-security $DEBIAN_SUITE-security main"
)
# Documentation, manuals and translations are left out of every image (copyright files stay).
DPKG_EXCLUDES=(
  'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*'
  'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/lintian/*'
)

lowers=()
wheels=
while [[ $# -gt 0 ]]; do
  case $1 in
    --wheels) wheels=${2:?--wheels needs a directory}; shift 2 ;;
    *) lowers+=("$1"); shift ;;
  esac
done

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree="$out/tree"

packages=()
[[ -f "$def/packages" ]] && mapfile -t packages < <(grep -v '^\s*\(#\|$\)' "$def/packages")

# Runs the layer's steps inside `root` (a mounted directory); called in a private mount namespace.
apply_layer() {
  local root=$1
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  # apt needs name resolution; the file is removed again below (kubelet provides its own).
  touch "$root/etc/resolv.conf"
  mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  if [[ ${#packages[@]} -gt 0 ]]; then
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
      SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" sh -c \
      'apt-get -q update && apt-get -q install -y --no-install-recommends "$@"' sh "${packages[@]}"
  fi
  if [[ -d "$def/files" ]]; then
    cp -R --no-preserve=ownership "$def/files/." "$root/"
  fi
  if [[ -n "$wheels" ]]; then
    mkdir -p "$root/run/wheels"
    mount --bind -o ro "$wheels" "$root/run/wheels"
  fi
  if [[ -f "$def/recipe.sh" ]]; then
    cp "$def/recipe.sh" "$root/run/layer-recipe.sh"
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" HOME=/root LC_ALL=C.UTF-8 /bin/bash -euo pipefail /run/layer-recipe.sh
    rm -f "$root/run/layer-recipe.sh"
  fi
  chroot "$root" dpkg-query -W -f '${Package}\t${Version}\n' >"$out/debs.txt"
  if [[ -n "$wheels" ]]; then
    chroot "$root" python3 -c 'import importlib.metadata as m; [print(f"{d.name}\t{d.version}") for d in m.distributions(path=["/usr/local/lib/python3.11/dist-packages"])]' |
      sort -f >"$out/wheels.txt"
    umount "$root/run/wheels"
    rmdir "$root/run/wheels"
  fi
  umount "$root/etc/resolv.conf"
  umount -R "$root/dev"
  umount "$root/proc"
  rm -f "$root/usr/sbin/policy-rc.d"
}

# What apt, dpkg and the build leave behind that no image needs (removed from the layer only: a
# file of a lower layer shows through again).
clean_tree() {
  local t=$1
  rm -rf "$t"/var/lib/apt/lists/* "$t"/var/cache/apt/* "$t"/var/cache/ldconfig/aux-cache \
    "$t"/var/cache/debconf/*-old "$t"/var/lib/dpkg/*-old "$t"/var/log/apt "$t"/var/log/dpkg.log \
    "$t"/var/log/alternatives.log "$t"/var/log/bootstrap.log "$t"/root/.cache "$t"/tmp/* \
    "$t"/etc/resolv.conf "$t"/etc/hostname "$t"/run/mount "$t"/etc/machine-id "$t"/var/lib/dbus/machine-id
  # The runtime provides /dev; a layer carries no device nodes (overlay whiteouts are not in /dev).
  if [[ -d "$t/dev" ]]; then
    find "$t/dev" -mindepth 1 -delete
  fi
}

# Directories an overlay copied up only to reach something that is gone again: empty, not opaque,
# and the same (mode, owner) in a lower tree. Dropping them keeps a layer to what it adds.
is_opaque() {
  python3 -c 'import os, sys
try:
    sys.exit(0 if os.getxattr(sys.argv[1], "trusted.overlay.opaque") == b"y" else 1)
except OSError:
    sys.exit(1)' "$1"
}
prune_copied_up_dirs() {
  local t=$1 dir rel lower same
  shift
  # depth first, emptiness checked when the directory's turn comes (its children are done by then)
  find "$t" -mindepth 1 -depth -type d -print0 | while IFS= read -r -d '' dir; do
    [[ -z $(ls -A "$dir") ]] || continue
    rel=${dir#"$t"}
    is_opaque "$dir" && continue
    for lower in "$@"; do
      if [[ -d "$lower$rel" && $(stat -c '%a %u %g' "$lower$rel") == $(stat -c '%a %u %g' "$dir") ]]; then
        rmdir "$dir"
        break
      fi
    done
  done
}

if [[ $layer == base ]]; then
  mm=${lowers[0]:?build-layer.sh base <out> <mmdebstrap-dir>}
  include=$(IFS=,; echo "${packages[*]}")
  dpkgopts=()
  for o in "${DPKG_EXCLUDES[@]}"; do dpkgopts+=("--dpkgopt=$o"); done
  # mmdebstrap is run from its extracted .deb (not installed on the host): its helpers and hooks
  # come from the same folder.
  PATH="$mm/usr/bin:$PATH" perl "$mm/usr/bin/mmdebstrap" --mode=root --variant=apt \
    --hook-dir="$mm/usr/share/mmdebstrap/hooks/merged-usr" \
    --aptopt='Acquire::Languages "none"' "${dpkgopts[@]}" --include="$include" \
    "$DEBIAN_SUITE" "$tree" "${SOURCES[@]}"
  packages=()
  unshare --mount --fork -- bash -c "$(declare -f apply_layer); $(declare -p def out wheels packages SOURCE_DATE_EPOCH); \
    mount --make-rprivate /; apply_layer '$tree'"
else
  [[ ${#lowers[@]} -gt 0 ]] || { echo "build-layer.sh: $layer needs at least one lower tree" >&2; exit 2; }
  # overlayfs lists lowerdirs topmost first
  lowerdir=
  for ((i = ${#lowers[@]} - 1; i >= 0; i--)); do
    lowerdir+="${lowerdir:+:}$(cd "${lowers[$i]}" && pwd)"
  done
  mkdir -p "$tree" "$out/work" "$out/root"
  unshare --mount --fork -- bash -c "$(declare -f apply_layer); $(declare -p def out wheels packages SOURCE_DATE_EPOCH); \
    mount --make-rprivate /; \
    mount -t overlay overlay -o 'lowerdir=$lowerdir,upperdir=$tree,workdir=$out/work' '$out/root'; \
    apply_layer '$out/root'"
  rm -rf "$out/work" "$out/root"
fi
clean_tree "$tree"
[[ $layer == base ]] || prune_copied_up_dirs "$tree" "${lowers[@]}"
echo "layer $layer built in $tree" >&2
