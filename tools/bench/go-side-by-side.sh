#!/usr/bin/env bash
# Our operators and upstream's Go operators on the same bench workloads, alternating run by run
# (issue 33, item 3; not part of `make test`):
#   keystone        ours, then upstream keystone-operator (the 200-KeystoneAPI scenario included)
#   network-addons  ours, then upstream cluster-network-addons-operator
# Builds the Go binaries from their sources at pinned commits with tools/upstream-switch/build.sh's
# functions (cached outside the repository, keyed by commit), runs `node tools/bench/dist/cli.js`
# once per run and operator (`--runs 1`, a fresh cluster each), and prints every figure's median
# for both with the ratio ours ÷ Go; everything lands under $OUT_DIR (default build/bench/go-side-by-side).
#
# Usage: tools/bench/go-side-by-side.sh [--runs N] [--from N] [--operators keystone,network-addons] [--build-only] [-- <bench args>]
#   e.g. tools/bench/go-side-by-side.sh --runs 3 -- --idle-seconds 30 --no-maxima --no-floor
# Environment: GO_SIDE_CLUSTER (kube-env cluster, default stackops-bench-go), OUT_DIR,
# UPSTREAM_MIRROR / UPSTREAM_SWITCH_CACHE as build.sh reads them. Run it under `nice` on a shared machine.
set -euo pipefail
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../upstream-switch/build.sh
. "$bench_dir/../upstream-switch/build.sh"

# The pinned commits: keystone-operator's is upstream.env's (sourced by build.sh), CNAO's is here.
# shellcheck source=go-operators.env
. "$bench_dir/go-operators.env"

runs=3
from=1 # the first run's number: more runs added to an earlier output (the report takes every run)
operators=keystone,network-addons
build_only=false # only build (and cache) the Go binaries: what `make bench` asks when they are absent
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2 && shift 2 ;;
    --from) from=$2 && shift 2 ;;
    --operators) operators=$2 && shift 2 ;;
    --build-only) build_only=true && shift ;;
    --) shift && break ;;
    *) echo "usage: go-side-by-side.sh [--runs N] [--from N] [--operators keystone,network-addons] [--build-only] [-- <bench args>]" >&2 && exit 2 ;;
  esac
done
cluster=${GO_SIDE_CLUSTER:-stackops-bench-go}
export PATH=$repo/node_modules/.bin:$PATH # the repository's node (24) and nx
out=$(mkdir -p "${OUT_DIR:-$repo/build/bench/go-side-by-side}" && cd "${OUT_DIR:-$repo/build/bench/go-side-by-side}" && pwd)

keystone_src="$OUT/src/keystone-operator-$KEYSTONE_OPERATOR_COMMIT"
keystone_bin="$OUT/bin/keystone-operator-$KEYSTONE_OPERATOR_COMMIT"
cnao_src="$OUT/src/cluster-network-addons-operator-$CNAO_COMMIT"
cnao_bin="$OUT/bin/cluster-network-addons-operator-$CNAO_COMMIT"

build_keystone() {
  export_tree keystone-operator "$KEYSTONE_OPERATOR_COMMIT" "$keystone_src"
  build_binary "$keystone_src" "$keystone_bin"
}

# CNAO vendors its modules (the proxy refuses its root module; nothing else is needed). Two blobs
# are absent from the snapshot (sqlite's C amalgamation, unused with CGO off, and one of kyaml's
# OpenAPI documents, not embedded): export_tree_present leaves them out and says so.
build_cnao() {
  export_tree_present "$CNAO_REPO" "$CNAO_COMMIT" "$cnao_src"
  # Its manager binds metrics and probes to `:8443` and `:8081`, every interface, with no flag to
  # change it; here everything listens on 127.0.0.1, so the two addresses come from the environment
  # when set (the only change to upstream's source; the bench fills in free loopback ports).
  local main="$cnao_src/cmd/manager/main.go"
  if ! grep -q CNAO_METRICS_BIND_ADDRESS "$main"; then
    sed -i -e 's|^import (|import (\n\t"cmp"|' \
      -e 's|fmt.Sprintf(":%d", components.MetricsPort)|cmp.Or(os.Getenv("CNAO_METRICS_BIND_ADDRESS"), fmt.Sprintf(":%d", components.MetricsPort))|' \
      -e 's|fmt.Sprintf(":%d", components.HealthProbePort)|cmp.Or(os.Getenv("CNAO_HEALTH_PROBE_BIND_ADDRESS"), fmt.Sprintf(":%d", components.HealthProbePort))|' \
      "$main"
    rm -f "$cnao_bin"
  fi
  [ "$(grep -c '_BIND_ADDRESS"' "$main")" = 2 ] || { echo "$main: the bind-address change did not apply" >&2 && exit 1; }
  build_binary "$cnao_src" "$cnao_bin" ./cmd/manager
}

if $build_only; then
  for w in ${operators//,/ }; do
    case $w in
      keystone) build_keystone ;;
      network-addons) build_cnao ;;
      *) echo "no Go operator for workload $w" >&2 && exit 2 ;;
    esac
  done
  exit 0
fi

(cd "$repo" && nice -n 19 npx nx build bench --outputStyle=static >"$out/build.log" 2>&1) ||
  { tail -20 "$out/build.log" >&2 && exit 1; }
bench() { # workload side(ours|go) run [go args...]
  local w=$1 side=$2 i=$3
  shift 3
  local dir="$out/$w/$side-$i"
  mkdir -p "$dir"
  log "$w, $side, run $i ($(cut -d' ' -f1-3 /proc/loadavg)) -> $dir"
  # A failed run is kept (its log and whatever results.json it wrote) and the next goes on.
  nice -n 19 node "$repo/tools/bench/dist/cli.js" --operators "$w" --runs 1 --cluster "$cluster" --out "$dir" \
    "${bench_args[@]}" "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt" || log "$w, $side, run $i: bench exited $?"
}
bench_args=("$@")
for w in ${operators//,/ }; do
  [[ $w == keystone || $w == network-addons ]] || { echo "no Go operator for workload $w" >&2 && exit 2; }
  if [ "$w" = keystone ]; then build_keystone; else build_cnao; fi
  # How each Go operator runs out of cluster is the bench's (src/go.ts, `--go only`), as in `make bench`.
  for i in $(seq "$from" $((from + runs - 1))); do
    bench "$w" ours "$i" --go off
    bench "$w" go "$i" --go only
  done
done

# Medians of each figure over the runs that produced it, both sides, and ours ÷ Go.
node - "$out" "$operators" <<'JS' | tee "$out/report.txt"
const { readFileSync, existsSync } = require('node:fs');
const [out, operators] = process.argv.slice(2);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (v) => (v === undefined ? '-' : Number.isFinite(v) ? String(Number(v.toPrecision(3))) : 'never');
const figures = (dir) => {
  const f = new Map();
  for (let i = 1; existsSync(`${dir}-${i}`); i++) {
    const file = `${dir}-${i}/results.json`;
    if (!existsSync(file)) continue;
    for (const run of JSON.parse(readFileSync(file, 'utf8')).results[0]?.runs ?? [])
      for (const [k, v] of Object.entries(run ?? {}))
        if (typeof v?.value === 'number') f.set(k, [...(f.get(k) ?? []), v.value]);
  }
  return f;
};
for (const w of operators.split(',')) {
  const ours = figures(`${out}/${w}/ours`);
  const go = figures(`${out}/${w}/go`);
  const rows = [['figure', 'ours', 'n', 'Go', 'n', 'ours ÷ Go']];
  for (const k of new Set([...ours.keys(), ...go.keys()])) {
    const a = ours.has(k) ? median(ours.get(k)) : undefined;
    const b = go.has(k) ? median(go.get(k)) : undefined;
    const ratio = a !== undefined && b !== undefined && b !== 0 ? a / b : undefined;
    rows.push([k, fmt(a), String(ours.get(k)?.length ?? 0), fmt(b), String(go.get(k)?.length ?? 0), fmt(ratio)]);
  }
  const width = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  console.log(`\n${w} (medians; n = runs with the figure)`);
  for (const r of rows) console.log(r.map((c, j) => (j ? c.padStart(width[j]) : c.padEnd(width[j]))).join('  '));
}
JS
