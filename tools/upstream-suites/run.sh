#!/usr/bin/env bash
# Runs one upstream kuttl test, unchanged, against the cluster setup.sh prepared, and prints one
# line per step: pass, fail (with kuttl's reason) or not reached (kuttl stops a test at its first
# failing step).
# Usage: tools/upstream-suites/run.sh <keystone|placement> <test>
#   KUTTL_ARGS are added to kuttl's (e.g. KUTTL_ARGS="--timeout 120" for a quick look; the table uses none)
#   e.g. tools/upstream-suites/run.sh keystone keystone_scale
# Logs: $CACHE/logs/<test>.log (kuttl's full output), $CACHE/logs/<test>.steps (the step lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=upstream.env
. "$here/upstream.env"
repo=$(cd "$here/../.." && pwd)
suite_name=${1:?keystone or placement}
test=${2:?test name}
case $suite_name in
  keystone) suite="$CACHE/suites/keystone-operator-$KEYSTONE_OPERATOR_COMMIT" ns=keystone-kuttl-tests ;;
  placement) suite="$CACHE/suites/placement-operator-$PLACEMENT_OPERATOR_COMMIT" ns=placement-kuttl-tests ;;
  *) echo "unknown suite $suite_name" >&2; exit 2 ;;
esac
# VARIANT=documented-differences: a copy of keystone's suite whose *input* (the sample KeystoneAPI)
# already has what upstream's webhook would store (`cpu: "1"`) and names `memcachedInstance:
# memcached` (upstream's default): the two differences operators/keystone/README.md keeps on
# purpose. Asserts untouched. It shows how far the rest of a test gets; the table says which run.
if [ "${VARIANT:-}" = documented-differences ] && [ "$suite_name" = keystone ]; then
  variant="$CACHE/suites/keystone-operator-$KEYSTONE_OPERATOR_COMMIT-documented-differences"
  if [ ! -d "$variant" ]; then
    cp -a "$suite" "$variant.tmp"
    for f in keystone_v1beta1_keystoneapi.yaml keystone_v1beta1_keystoneapi_tls.yaml; do
      sed -i -e 's/cpu: "1.0"/cpu: "1"/' -e 's/^  databaseAccount: keystone$/  databaseAccount: keystone\n  memcachedInstance: memcached/' \
        "$variant.tmp/config/samples/$f"
    done
    mv "$variant.tmp" "$variant"
  fi
  suite=$variant
fi
tests="$suite/test/kuttl/tests"
[ -d "$tests/$test" ] || { echo "no test $test in $tests" >&2; exit 2; }
kuttl="$CACHE/kuttl-$KUTTL_VERSION/kubectl-kuttl"
eval "$(node "$repo/tools/kube-env/dist/cli.js" env --name "$CLUSTER")"
# `oc` is kubectl; the *_KUTTL_DIR variables are what install_yamls' Makefile sets.
export PATH="$here/bin:$PATH" KEYSTONE_KUTTL_DIR="$tests" PLACEMENT_KUTTL_DIR="$tests"
logs="$CACHE/logs"
mkdir -p "$logs"
log="$logs/$test.log"

# OpenShift's SCC admission annotates every pod with the SCC that admitted it (`openshift.io/scc`);
# upstream's asserts and errors select pods by that annotation. Without OpenShift, this loop adds
# the annotation (anyuid, the SCC those pods get there) to every pod of the namespace.
annotate_scc() {
  while :; do
    kubectl -n "$ns" get pods -o json 2>/dev/null |
      jq -r '.items[] | select(.metadata.annotations["openshift.io/scc"] == null) | .metadata.name' |
      xargs -r -I{} kubectl -n "$ns" annotate pod {} openshift.io/scc=anyuid >/dev/null 2>&1 || true
    sleep 1
  done
}

# Upstream's KeystoneAPI sample requests a whole CPU and this machine's node has two: the Keystone
# that placement's tests need (setup.sh) runs only while they run.
if [ "$suite_name" = keystone ]; then
  kubectl -n placement-kuttl-tests patch keystoneapi keystone --type merge -p '{"spec":{"replicas":0}}' >/dev/null
else
  kubectl -n placement-kuttl-tests patch keystoneapi keystone --type merge -p '{"spec":{"replicas":1}}' >/dev/null
  kubectl -n placement-kuttl-tests wait --for=jsonpath='{.status.readyCount}'=1 keystoneapi/keystone --timeout 300s
fi

# What a previous test left (kuttl keeps objects in a namespace it did not create), as install_yamls'
# deploy_cleanup does between suites.
for kind in pod/openstackclient placementapi/placement keystoneendpoint/placement keystoneservice/placement keystoneapi/keystone; do
  [ "$suite_name" = placement ] && case $kind in keystone*) continue ;; esac
  kubectl -n "$ns" delete "$kind" --ignore-not-found --wait --timeout 300s >/dev/null 2>&1 || true
done

annotate_scc &
annotator=$!
trap 'kill $annotator 2>/dev/null || true' EXIT

# Upstream's scripts say `#!/bin/sh` and `set -o pipefail`: /bin/sh is bash where upstream runs them
# (RHEL), dash here. In a private mount namespace (kuttl and its children only), /bin/sh is bash.
cd "$logs"
set +e
unshare -m bash -c 'mount --bind /usr/bin/bash /usr/bin/sh && exec "$@"' kuttl \
  "$kuttl" test --config "$suite/kuttl-test.yaml" "$tests" --namespace "$ns" --test "$test" ${KUTTL_ARGS:-} >"$log" 2>&1
rc=$?
set -e

# One line per step of the test, in order.
steps=$(ls "$tests/$test" | sed -n 's/^\([0-9][0-9]*\)-.*/\1/p' | sort -un)
{
  for n in $steps; do
    i=$((10#$n))
    name=$(grep -o "starting test step $i-[^ ]*" "$log" | head -1 | sed 's/starting test step //')
    if grep -q "test step completed $i-" "$log"; then
      echo "$test $n pass $name"
    elif grep -q "test step failed $i-" "$log"; then
      # kuttl names each object that did not match (first difference) and each failing command.
      why=$(sed -n "/test step failed $i-/,/^--- FAIL/p" "$log" | grep -E "case\.go:[0-9]+: (resource |command|.*exit status)" |
        sed 's/^ *case\.go:[0-9]*: //' | sort -u | tr '\n' ';' | cut -c1-600)
      echo "$test $n FAIL $name: $why"
    else
      echo "$test $n not-reached"
    fi
  done
} | tee "$logs/$test.steps"
echo "kuttl exit $rc; full log: $log"
exit $rc
