#!/usr/bin/env bash
# Installs OpenStack Keystone from PyPI into a virtualenv for the keystone-operator tests.
# Idempotent and safe to run concurrently: a complete venv carries a stamp naming the Keystone
# version and the constraints' checksum; a run that finds a matching stamp does nothing.
#
# usage: install-venv.sh [venv-dir]
#   default venv-dir: ${XDG_CACHE_HOME:-$HOME/.cache}/stackops/keystone-venv/<version>
#   STACKOPS_PYTHON: the Python to build the venv with (default python3; Keystone needs >= 3.11)
# Prints the venv directory as the last line of stdout.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(tr -d '[:space:]' <"$here/keystone-version.txt")
constraints="$here/constraints.txt"
venv=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/stackops/keystone-venv/$version}
python=${STACKOPS_PYTHON:-python3}
stamp="$venv/.stackops-complete"
want="keystone==$version constraints=$(sha256sum "$constraints" | cut -c1-16)"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$venv"
  exit 0
fi

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
# Another run may have finished while this one waited for the lock.
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$venv"
  exit 0
fi

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "install-venv.sh: Keystone $version needs Python >= 3.11; $python is $("$python" --version 2>&1)" >&2
  exit 1
fi
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "install-venv.sh: $python cannot create virtualenvs (on Debian: apt-get install python3-venv)" >&2
  exit 1
fi

started=$(date +%s)
echo "installing keystone==$version into $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input --quiet)
# Binary wheels only first (no compiler needed); fall back to building what has no wheel.
if ! "${pip[@]}" install --only-binary=:all: -c "$constraints" "keystone==$version" >&2; then
  echo "install-venv.sh: some dependency has no binary wheel here; retrying with source builds allowed" >&2
  "${pip[@]}" install --prefer-binary -c "$constraints" "keystone==$version" >&2
fi
"$venv/bin/python" -c 'import keystone.server.wsgi' >&2
echo "$want" >"$stamp"
echo "installed keystone==$version in $(($(date +%s) - started)) s" >&2
echo "$venv"
