#!/usr/bin/env bash
# Fills <out> with the wheels of a layer (layers/<layer>/requirements.txt pinned by its
# constraints.txt; default layer: python) for the
# base layer's own python3.11: pip runs in a chroot of <base-tree> (on a throwaway overlay), from its
# wheel <pip.whl>, with the host's network, downloading from PyPI and building the pure-Python sdists
# that have no wheel. Copies pip's wheel, requirements.txt and constraints.txt beside the wheels.
# pip trusts the host's CA bundle (PIP_CERT, else SSL_CERT_FILE, else Debian's default path): the
# machine's network may need a CA the image does not carry.
#
#   build-wheelhouse.sh <out> <base-tree> <pip.whl> [<layer>]      (needs root)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: build-wheelhouse.sh <out> <base-tree> <pip.whl>}
base=$(cd "${2:?usage: build-wheelhouse.sh <out> <base-tree> <pip.whl>}" && pwd)
pip_wheel=${3:?usage: build-wheelhouse.sh <out> <base-tree> <pip.whl>}
layer=${4:-python}
[[ $(id -u) -eq 0 ]] || { echo "build-wheelhouse.sh: must run as root (chroot, mounts)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp "$pip_wheel" "$here/layers/$layer/requirements.txt" "$here/layers/$layer/constraints.txt" "$out/"
ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
[[ -f $ca ]] || { echo "build-wheelhouse.sh: no CA bundle at $ca (set PIP_CERT)" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stackops-wheelhouse.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/upper" "$scratch/work" "$scratch/root"

unshare --mount --fork -- bash -euo pipefail -c '
  base=$1 out=$2 s=$3 pip=$4 ca=$5
  mount --make-rprivate /
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$s/upper,workdir=$s/work" "$s/root"
  mount -t proc proc "$s/root/proc"
  mount --rbind /dev "$s/root/dev"
  mount --make-rslave "$s/root/dev"
  touch "$s/root/etc/resolv.conf"
  mount --bind /etc/resolv.conf "$s/root/etc/resolv.conf"
  mkdir -p "$s/root/run/wheels"
  mount --bind "$out" "$s/root/run/wheels"
  touch "$s/root/run/host-ca.crt"
  mount --bind "$ca" "$s/root/run/host-ca.crt"
  chroot "$s/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
    python3 "/run/wheels/$pip/pip" wheel --quiet --disable-pip-version-check --no-cache-dir --cert /run/host-ca.crt \
    --wheel-dir /run/wheels -r /run/wheels/requirements.txt -c /run/wheels/constraints.txt
  umount "$s/root/run/wheels" "$s/root/run/host-ca.crt" "$s/root/etc/resolv.conf" "$s/root/proc"
  umount -R "$s/root/dev"
  umount "$s/root"
' wheelhouse "$base" "$out" "$scratch" "$(basename "$pip_wheel")" "$ca"
echo "wheelhouse: $(find "$out" -name '*.whl' | wc -l) wheels in $out" >&2
