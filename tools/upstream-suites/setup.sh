#!/usr/bin/env bash
# Prepares what upstream's suites expect to find before they run, as install_yamls would:
#   - a cluster with real nodes (kube-env; UPSTREAM_SUITES_REAL_NODES, default 2), our operator
#     images and the stand-in workload images loaded into every one, the stand-in openstackclient image also under the TCIB name the fernet test's
#     Pod names;
#   - keystone-operator and placement-operator installed from charts/ into `openstack-operators`,
#     their relatedImages naming the stand-in images;
#   - in each suite's namespace: install_yamls' `osp-secret` (the same keys), a MariaDB pod behind
#     the Service `openstack`, and (placement's namespace) a Ready KeystoneAPI from
#     keystone-operator's sample, as install_yamls' kuttl_common_prep does.
# Usage: tools/upstream-suites/setup.sh   (UPSTREAM_SUITES_CLUSTER names the cluster)
# Needs: `make images` (the operator images in build/images) and tools/upstream-suites/fetch.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=upstream.env
. "$here/upstream.env"
repo=$(cd "$here/../.." && pwd)
KEYSTONE_SUITE="$CACHE/suites/keystone-operator-$KEYSTONE_OPERATOR_COMMIT"
kube_env() { node "$repo/tools/kube-env/dist/cli.js" "$@"; }
log() { echo "[setup $(date -u +%H:%M:%S)] $*"; }

# --admission-webhooks: the API server (in the node's network namespace with a real node) calls the
# operators' defaulting webhooks through their Services, as on a real cluster (upstream's webhook
# stores `cpu: "1.0"` as "1"; so does ours).
kube_env up --name "$CLUSTER" --real-nodes "$REAL_NODES" --nodes 0 --timeout 600 --admission-webhooks
eval "$(kube_env env --name "$CLUSTER")"
state=$(dirname "$KUBECONFIG")
ctr_nodes() { # every real node's containerd (node/, node-2/, …)
  local socket
  for socket in "$state"/node/containerd.sock "$state"/node-*/containerd.sock; do
    [ -S "$socket" ] && ctr --address "$socket" --namespace k8s.io "$@"
  done
  return 0
}
# The harness's own pods (operators, MariaDB, memcached) stay on the first node, as a real
# cluster's control-plane services would sit apart: the suites' Keystone pods each ask for a whole
# CPU (keystone_scale: 3 of them), and each node has the machine's 2 CPUs.
first_node=real-node

log "stand-in workload images (built, or taken from their layer cache)"
node "$repo/tools/images/dist/workloads/cli.js" >/dev/null
image() { node -p "require('$repo/build/images/workloads.json').images['$1'].name"; }
keystone_image=$(image keystone)
placement_image=$(image placement)
mariadb_image=$(image mariadb)
client_image=$(image openstackclient)
archives=()
for i in "$keystone_image" "$placement_image" "$mariadb_image" "$client_image"; do
  archives+=("$repo/build/images/${i%:*}/${i##*:}/image.oci.tar")
done
for op in keystone placement; do
  # The version folder (linux/amd64), not `<version>@index` or `<version>@linux-arm64` beside it.
  archives+=("$(ls "$repo"/build/images/ghcr.io/stackops/$op-operator/*/image.oci.tar | grep -v @)")
done
log "loading ${#archives[@]} images into the real node"
kube_env load-images --name "$CLUSTER" "${archives[@]}"
# The fernet test's openstackclient Pod names the TCIB image: the stand-in answers to that name.
ctr_nodes images tag --force "$client_image" \
  quay.io/podified-antelope-centos9/openstack-openstackclient:current-podified >/dev/null

for op in keystone placement; do
  if [ $op = keystone ]; then api=keystoneAPI img=$keystone_image; else api=placementAPI img=$placement_image; fi
  log "helm install $op-operator"
  helm upgrade --install "$op-operator" "$repo/charts/$op-operator" -n openstack-operators --create-namespace \
    --set "relatedImages.$api=$img" --set "relatedImages.mariadb=$mariadb_image" --set webhook.enabled=true \
    --set "nodeSelector.kubernetes\.io/hostname=$first_node" \
    --wait --timeout 4m
done
# helm never upgrades a chart's crds/: a re-run after the operators changed applies them itself.
kubectl apply --server-side --force-conflicts -f "$repo/charts/keystone-operator/crds/" \
  -f "$repo/charts/placement-operator/crds/" >/dev/null
# A new image under the same tag (a rebuilt operator) needs new pods.
kubectl -n openstack-operators rollout restart deployment >/dev/null
kubectl -n openstack-operators rollout status deployment --timeout 240s

# install_yamls' osp-secret: the keys scripts/gen-input-kustomize.sh writes, each a random hex
# password as scripts/gen-secrets.sh makes them, labelled as kustomize labels it.
osp_secret() { # namespace
  kubectl -n "$1" get secret osp-secret >/dev/null 2>&1 && return 0
  local args=() key
  for key in AdminPassword AodhPassword BarbicanPassword CeilometerPassword CloudKittyPassword \
    DbRootPassword DatabasePassword DesignatePassword PlacementPassword GlancePassword NeutronPassword \
    CinderPassword IronicPassword IronicInspectorPassword OctaviaPassword OctaviaHeartbeatKey NovaPassword \
    ManilaPassword HeatPassword HeatStackDomainAdminPassword SwiftPassword WatcherPassword; do
    args+=("--from-literal=$key=$(openssl rand -hex 16)")
  done
  args+=("--from-literal=BarbicanSimpleCryptoKEK=$(head -c 32 /dev/urandom | base64 -w0)")
  args+=("--from-literal=KeystoneOIDCClientSecret=$(head -c 24 /dev/urandom | base64 -w0)")
  args+=("--from-literal=KeystoneOIDCCryptoPassphrase=$(openssl rand -hex 8)")
  args+=("--from-literal=MetadataSecret=$(openssl rand -hex 5)")
  args+=("--from-literal=HeatAuthEncryptionKey=$(openssl rand -hex 16)")
  kubectl -n "$1" create secret generic osp-secret "${args[@]}"
  kubectl -n "$1" label secret osp-secret created-by=install_yamls type=osp-secret
}

# MariaDB behind Service `openstack` (mariadb-operator's Galera service name in install_yamls):
# the stand-in image runs one server, root's password from osp-secret's DbRootPassword.
mariadb() { # namespace
  kubectl -n "$1" apply -f - <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: mariadb-openstack
  labels: {app: mariadb}
spec:
  nodeSelector: {kubernetes.io/hostname: $first_node}
  securityContext: {fsGroup: 42434}
  containers:
    - name: mariadb
      image: $mariadb_image
      imagePullPolicy: Never
      env:
        - name: DB_ROOT_PASSWORD
          valueFrom: {secretKeyRef: {name: osp-secret, key: DbRootPassword}}
      ports: [{containerPort: 3306, name: mysql}]
      readinessProbe: {tcpSocket: {port: 3306}, periodSeconds: 2}
      volumeMounts: [{name: data, mountPath: /var/lib/mysql}]
  volumes: [{name: data, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata:
  name: openstack
  labels: {app: mariadb}
spec:
  ports: [{name: mysql, port: 3306}]
  selector: {app: mariadb}
EOF
  kubectl -n "$1" wait --for=condition=Ready pod/mariadb-openstack --timeout 180s
}

# memcached behind Service `memcached` (install_yamls: infra-operator's Memcached `memcached`).
# No memcached image exists here: Debian's memcached binary (apt-get download) and the host's
# libraries it links (the same Debian release as the stand-in images) are mounted into a pod of the
# stand-in MariaDB image.
memcached_dir="$CACHE/memcached"
if [ ! -x "$memcached_dir/memcached" ]; then
  work=$(mktemp -d)
  (cd "$work" && apt-get download memcached >/dev/null 2>&1 && dpkg-deb -x memcached_*.deb root)
  mkdir -p "$memcached_dir.tmp/lib"
  cp "$work/root/usr/bin/memcached" "$memcached_dir.tmp/"
  ldd "$work/root/usr/bin/memcached" | awk '/=> \// {print $3}' | grep -v -E '/libc\.so|/ld-linux' |
    xargs -I{} cp -L {} "$memcached_dir.tmp/lib/"
  rm -rf "$work" "$memcached_dir"
  mv "$memcached_dir.tmp" "$memcached_dir"
fi
memcached() { # namespace
  kubectl -n "$1" apply -f - <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: memcached
  labels: {app: memcached}
spec:
  nodeSelector: {kubernetes.io/hostname: $first_node}
  containers:
    - name: memcached
      image: $mariadb_image
      imagePullPolicy: Never
      command: [/opt/memcached/memcached, -p, "11211", -l, 0.0.0.0, -m, "64"]
      env: [{name: LD_LIBRARY_PATH, value: /opt/memcached/lib}]
      ports: [{containerPort: 11211, name: memcached}]
      readinessProbe: {tcpSocket: {port: 11211}, periodSeconds: 2}
      volumeMounts: [{name: memcached, mountPath: /opt/memcached, readOnly: true}]
  volumes: [{name: memcached, hostPath: {path: $memcached_dir, type: Directory}}]
---
apiVersion: v1
kind: Service
metadata:
  name: memcached
  labels: {app: memcached}
spec:
  ports: [{name: memcached, port: 11211}]
  selector: {app: memcached}
EOF
  kubectl -n "$1" wait --for=condition=Ready pod/memcached --timeout 120s
}

for ns in keystone-kuttl-tests placement-kuttl-tests; do
  log "namespace $ns: osp-secret, MariaDB, memcached"
  kubectl create namespace "$ns" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  osp_secret "$ns"
  mariadb "$ns"
  memcached "$ns"
done

log "placement-kuttl-tests: KeystoneAPI from keystone-operator's sample"
kubectl -n placement-kuttl-tests apply -f "$KEYSTONE_SUITE/config/samples/keystone_v1beta1_keystoneapi.yaml"
if ! kubectl -n placement-kuttl-tests wait --for=condition=Ready keystoneapi/keystone --timeout 600s; then
  kubectl -n placement-kuttl-tests get keystoneapi keystone -o yaml | sed -n '/^status:/,$p'
  exit 1
fi
log "ready"
