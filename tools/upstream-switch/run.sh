#!/usr/bin/env bash
# Tries docs/migrating-from-upstream.md, section B, on a real node: upstream's Go keystone-operator
# and placement-operator (tools/upstream-switch/build.sh) bring upstream's samples to Ready with
# real Keystone and Placement pods, then the guide's steps switch to stackops' charts and back.
# Each stage compares what it must not change (pods, Jobs, fernet keys, database, Keystone objects)
# against the snapshot taken before it and prints every difference.
# Usage: tools/upstream-switch/run.sh [up|upstream|switch|back|all]   (UPSTREAM_SWITCH_CLUSTER)
# Needs: build.sh's images, `make images` (the operator and stand-in images), root, jq, ctr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../upstream-suites/upstream.env
. "$here/../upstream-suites/upstream.env"
repo=$(cd "$here/../.." && pwd)
MIRROR=${UPSTREAM_MIRROR:-/work/.mirror}
OUT=${UPSTREAM_SWITCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackops/upstream-switch}
CLUSTER=${UPSTREAM_SWITCH_CLUSTER:-upstream-switch}
# 1: the Go operators serve their admission webhooks as a standalone install does (upstream's
# config/webhook, a locally made serving certificate instead of cert-manager's); 0: webhooks off.
WEBHOOKS=${UPSTREAM_SWITCH_WEBHOOKS:-1}
RUN="$OUT/run-$CLUSTER"
NS=openstack          # the operands (upstream's default namespace)
OPS=openstack-operators # the Go operators (openstack-operator's namespace)
kube_env() { node "$repo/tools/kube-env/dist/cli.js" "$@"; }
log() { echo "[switch $(date -u +%H:%M:%S)] $*"; }
fail() { echo "[switch $(date -u +%H:%M:%S)] FAIL: $*" >&2; exit 1; }
mkdir -p "$RUN"
image() { node -p "require('$repo/build/images/workloads.json').images['$1'].name"; }
# Keystone and Placement: the stand-ins with kolla's httpd foreground start (build.sh, "foreground").
api_image() { echo "$(image "$1")-fg"; }
ks_short=${KEYSTONE_OPERATOR_COMMIT:0:12}
pl_short=${PLACEMENT_OPERATOR_COMMIT:0:12}

stage_up() {
  # The cluster is usable when `env` knows it and its real node answers.
  (eval "$(kube_env env --name "$CLUSTER")" && kubectl get node real-node >/dev/null 2>&1) ||
    kube_env up --name "$CLUSTER" --real-nodes 2 --nodes 0 --timeout 600 $([ "$WEBHOOKS" = 1 ] && echo --admission-webhooks)
  eval "$(kube_env env --name "$CLUSTER")"
  local archives=() i f
  for i in keystone placement mariadb openstackclient; do
    i=$(image $i)
    archives+=("$repo/build/images/${i%:*}/${i##*:}/image.oci.tar")
  done
  # The amd64 image only (`<version>@index` and `<version>@linux-arm64` sit beside it). The umbrella
  # chart runs the operators in one pod by default (stackops-operators, ADR 0044).
  for f in "$repo"/build/images/ghcr.io/stackops/{keystone-operator,placement-operator,stackops-operators}/*/image.oci.tar; do
    case $f in *@*) ;; *) archives+=("$f") ;; esac
  done
  archives+=("$OUT/images/keystone-operator-$KEYSTONE_OPERATOR_COMMIT.tar" "$OUT/images/placement-operator-$PLACEMENT_OPERATOR_COMMIT.tar"
    "$OUT/images/keystone-fg.tar" "$OUT/images/placement-fg.tar")
  log "loading ${#archives[@]} images into the real nodes"
  kube_env load-images --name "$CLUSTER" "${archives[@]}"
}

# ---------------------------------------------------------------------------------------------
# Upstream's world: CRDs at the pinned commits, mariadb-operator/infra-operator CRDs (their
# controllers played as tools/e2e/test/openstack's Galera block plays them), the Go operators.
# ---------------------------------------------------------------------------------------------
upstream_crds() { # every CRD the Go operators serve or watch
  local op commit
  for op in keystone-operator:$KEYSTONE_OPERATOR_COMMIT placement-operator:$PLACEMENT_OPERATOR_COMMIT; do
    commit=${op#*:}
    op=${op%%:*}
    for f in "$OUT/src/$op-$commit"/config/crd/bases/*.yaml; do echo "$f"; done
  done
}
apply_upstream_crds() { # kubectl verb: "apply --server-side" or replace
  local f
  # shellcheck disable=SC2086 # the verb may be two words
  for f in $(upstream_crds); do kubectl $1 -f "$f" >/dev/null || kubectl create -f "$f" >/dev/null; done
}

webhook_cert() { # dir service: a serving certificate for <service>.$OPS.svc signed by the run's CA
  local dir=$1 svc=$2 ca="$RUN/webhook-ca"
  if [ ! -s "$ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=upstream-switch webhook CA" \
      -keyout "$ca.key" -out "$ca.crt" 2>/dev/null
  fi
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$svc.$OPS.svc" -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
  openssl x509 -req -in "$dir/tls.csr" -CA "$ca.crt" -CAkey "$ca.key" -CAcreateserial -days 30 -out "$dir/tls.crt" \
    -extfile <(printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\nextendedKeyUsage=serverAuth\n' "$svc" $OPS "$svc" $OPS) 2>/dev/null
  rm -f "$dir/tls.csr"
}

go_operator() { # operator short-commit → Deployment <operator>-controller-manager in $OPS
  local op=$1 short=$2 src dir default_image
  src=$(ls -d "$OUT/src/$op-"*)
  dir="$src/config/stackops-switch"
  rm -rf "$dir"
  mkdir -p "$dir"
  # The image the mutating webhook defaults spec.containerImage to (config/default sets the real one).
  default_image=$(api_image "${op%-operator}")
  # upstream's own rbac and manager kustomizations, in openstack-operator's namespace and naming;
  # the image built by build.sh instead of the one config/manager names.
  cat >"$dir/kustomization.yaml" <<YAML
namespace: $OPS
namePrefix: $op-
resources: [../rbac, ../manager$([ "$WEBHOOKS" = 1 ] && echo ", ../webhook")]
images: [{name: quay.io/openstack-k8s-operators/$op, newName: localhost/upstream/$op, newTag: "$short"}]
patches:
  - target: {kind: Deployment}
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/env
        value:
          - {name: ENABLE_WEBHOOKS, value: "$([ "$WEBHOOKS" = 1 ] && echo true || echo false)"}
          - {name: OPERATOR_TEMPLATES, value: /usr/share/$op/templates/}
          - {name: RELATED_IMAGE_$(echo "${op%-operator}" | tr a-z A-Z)_API_IMAGE_URL_DEFAULT, value: "$default_image"}
      - op: add
        path: /spec/template/spec/containers/0/imagePullPolicy
        value: Never
      - op: add
        path: /spec/template/spec/securityContext/runAsUser
        value: 65532
      - op: add
        path: /spec/template/spec/nodeSelector
        value: {kubernetes.io/hostname: real-node}
YAML
  if [ "$WEBHOOKS" = 1 ]; then
    # As config/default wires them: upstream's manager_webhook_patch (cert path flag, port 9443, the
    # Secret webhook-server-cert mounted), the Service and the webhook configurations of
    # config/webhook; cert-manager's part (Certificate, caBundle injection) done here with openssl.
    cp "$src/config/default/manager_webhook_patch.yaml" "$dir/"
    webhook_cert "$dir" "$op-webhook-service"
    local ca
    ca=$(base64 -w0 <"$RUN/webhook-ca.crt")
    cat >>"$dir/kustomization.yaml" <<YAML
  - target: {kind: Deployment}
    path: manager_webhook_patch.yaml
  - target: {kind: MutatingWebhookConfiguration}
    patch: |-
      - {op: add, path: /webhooks/0/clientConfig/caBundle, value: "$ca"}
  - target: {kind: ValidatingWebhookConfiguration}
    patch: |-
      - {op: add, path: /webhooks/0/clientConfig/caBundle, value: "$ca"}
secretGenerator:
  - name: webhook-server-cert
    type: kubernetes.io/tls
    files: [tls.crt, tls.key]
    options: {disableNameSuffixHash: true}
YAML
  fi
  kubectl kustomize "$dir" >"$RUN/$op.yaml"
  kubectl apply --server-side -f "$RUN/$op.yaml" >/dev/null
  kubectl -n $OPS rollout status deployment "$op-controller-manager" --timeout 180s
}

webhooks_refuse() { # label: the Go validating webhooks refuse a topologyRef in another namespace
  # (server-side dry run: admission runs, nothing is stored)
  local kind out
  for kind in KeystoneAPI:keystone.openstack.org PlacementAPI:placement.openstack.org; do
    if out=$(kubectl -n $NS create --dry-run=server -f - 2>&1 <<YAML
apiVersion: ${kind#*:}/v1beta1
kind: ${kind%%:*}
metadata: {name: webhook-probe}
spec: {containerImage: probe, databaseInstance: openstack, secret: osp-secret, topologyRef: {name: t, namespace: elsewhere}}
YAML
    ); then
      echo "$1: ${kind%%:*} with a topologyRef in another namespace ACCEPTED: $out"
      return 1
    fi
    echo "$1: ${kind%%:*} refused: $out"
    # lib-common's topology check, which only the Go webhook runs (the CRD schema accepts the field)
    grep -q 'spec.topologyRef.namespace: Invalid value: "namespace": Customizing namespace field is not supported' <<<"$out" ||
      return 1
  done
}

osp_secret() {
  kubectl -n $NS get secret osp-secret >/dev/null 2>&1 && return 0
  local args=() key
  for key in AdminPassword DbRootPassword DatabasePassword PlacementPassword NovaPassword; do
    args+=("--from-literal=$key=$(openssl rand -hex 16)")
  done
  kubectl -n $NS create secret generic osp-secret "${args[@]}" >/dev/null
  # placement-operator's sample names `placement-secret`: the same keys.
  kubectl -n $NS get secret osp-secret -o json | jq '.metadata = {name: "placement-secret", namespace: "'$NS'"}' |
    kubectl apply -f - >/dev/null
}

infra_pods() { # MariaDB (Service `openstack`, as mariadb-operator's Galera names it) and memcached
  local mariadb_image memcached_dir="$OUT/memcached"
  mariadb_image=$(image mariadb)
  if [ ! -x "$memcached_dir/memcached" ]; then
    # No memcached image here: Debian's binary and the host's libraries it links (same release as
    # the stand-in images), as tools/upstream-suites/setup.sh does.
    local work
    work=$(mktemp -d)
    (cd "$work" && apt-get download memcached >/dev/null 2>&1 && dpkg-deb -x memcached_*.deb root)
    mkdir -p "$memcached_dir.tmp/lib"
    cp "$work/root/usr/bin/memcached" "$memcached_dir.tmp/"
    ldd "$work/root/usr/bin/memcached" | awk '/=> \// {print $3}' | grep -v -E '/libc\.so|/ld-linux' |
      xargs -I{} cp -L {} "$memcached_dir.tmp/lib/"
    rm -rf "$work" "$memcached_dir"
    mv "$memcached_dir.tmp" "$memcached_dir"
  fi
  kubectl -n $NS apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: mariadb-openstack, labels: {app: mariadb}}
spec:
  nodeSelector: {kubernetes.io/hostname: real-node}
  securityContext: {fsGroup: 42434}
  containers:
    - name: mariadb
      image: $mariadb_image
      imagePullPolicy: Never
      env: [{name: DB_ROOT_PASSWORD, valueFrom: {secretKeyRef: {name: osp-secret, key: DbRootPassword}}}]
      ports: [{containerPort: 3306, name: mysql}]
      readinessProbe: {tcpSocket: {port: 3306}, periodSeconds: 2}
      volumeMounts: [{name: data, mountPath: /var/lib/mysql}]
  volumes: [{name: data, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata: {name: openstack, labels: {app: mariadb, cr: mariadb-openstack}}
spec: {ports: [{name: mysql, port: 3306}], selector: {app: mariadb}}
---
apiVersion: v1
kind: Pod
metadata: {name: memcached-0, labels: {app: memcached}}
spec:
  nodeSelector: {kubernetes.io/hostname: real-node}
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
metadata: {name: memcached, labels: {app: memcached}}
spec: {ports: [{name: memcached, port: 11211}], selector: {app: memcached}}
---
apiVersion: v1
kind: Pod
metadata: {name: openstackclient, labels: {app: openstackclient}}
spec:
  nodeSelector: {kubernetes.io/hostname: real-node}
  containers:
    - name: openstackclient
      image: $(image openstackclient)
      imagePullPolicy: Never
      command: [sleep, infinity]
YAML
  kubectl -n $NS wait --for=condition=Ready pod/mariadb-openstack pod/memcached-0 pod/openstackclient --timeout 300s
}

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
report_ready() { # kind name condition-types... : what the CR's controller sets when done
  local kind=$1 name=$2
  shift 2
  local conds
  conds=$(printf '%s\n' "$@" | jq -R '{type: ., status: "True", lastTransitionTime: "'"$(now)"'"}' | jq -s .)
  kubectl -n $NS patch "$kind" "$name" --subresource=status --type=merge \
    -p "$(jq -n --argjson c "$conds" '{status: {conditions: $c}}')" >/dev/null
}
root_sql() { kubectl -n $NS exec mariadb-openstack -- bash -c 'MYSQL_PWD="$DB_ROOT_PASSWORD" exec mariadb --no-defaults -h 127.0.0.1 -u root -N -e "$1"' _ "$1"; }
wait_for() { # what command... : retries the command for 300 s
  local what=$1 t=0
  shift
  until "$@" >/dev/null 2>&1; do
    t=$((t + 2))
    [ $t -gt 300 ] && fail "waited 300 s for $what"
    sleep 2
  done
}
play_mariadb() { # name: what mariadb-operator does for a service's MariaDBDatabase and MariaDBAccount
  local name=$1 schema user secret password
  wait_for "MariaDBDatabase $name" kubectl -n $NS get mariadbdatabase "$name"
  schema=$(kubectl -n $NS get mariadbdatabase "$name" -o jsonpath='{.spec.name}')
  root_sql "CREATE DATABASE IF NOT EXISTS $schema CHARACTER SET utf8 COLLATE utf8_general_ci"
  report_ready mariadbdatabase "$name" MariaDBDatabaseReady Ready
  wait_for "MariaDBAccount $name" kubectl -n $NS get mariadbaccount "$name"
  user=$(kubectl -n $NS get mariadbaccount "$name" -o jsonpath='{.spec.userName}')
  secret=$(kubectl -n $NS get mariadbaccount "$name" -o jsonpath='{.spec.secret}')
  wait_for "Secret $secret" kubectl -n $NS get secret "$secret"
  password=$(kubectl -n $NS get secret "$secret" -o jsonpath='{.data.DatabasePassword}' | base64 -d)
  root_sql "CREATE OR REPLACE USER '$user'@'%' IDENTIFIED BY '$password'; GRANT ALL PRIVILEGES ON $schema.* TO '$user'@'%'"
  report_ready mariadbaccount "$name" MariaDBAccountReady Ready
  log "mariadb-operator played for $name: schema $schema, user $user"
}

stage_infra() { # idempotent
  eval "$(kube_env env --name "$CLUSTER")"
  log "CRDs: upstream's (keystone-operator@$ks_short, placement-operator@$pl_short), mariadb-operator's and infra-operator's"
  apply_upstream_crds "apply --server-side"
  for f in "$repo"/tools/crd-types/crds/*.yaml; do kubectl apply --server-side -f "$f" >/dev/null; done
  kubectl create namespace $NS --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  osp_secret
  infra_pods
  # What mariadb-operator and infra-operator would have made: the Galera `openstack` (bootstrapped,
  # Ready) and the Memcached `memcached` (Ready, its server list), as the Galera test plays them.
  kubectl -n $NS apply -f - >/dev/null <<YAML
apiVersion: mariadb.openstack.org/v1beta1
kind: Galera
metadata: {name: openstack}
spec: {containerImage: $(image mariadb), replicas: 1, secret: osp-secret, storageRequest: 1G}
---
apiVersion: memcached.openstack.org/v1beta1
kind: Memcached
metadata: {name: memcached}
spec: {containerImage: $(image mariadb), replicas: 1}
YAML
  kubectl -n $NS patch galera openstack --subresource=status --type=merge -p '{"status":{"bootstrapped":true}}' >/dev/null
  report_ready galera openstack Ready
  kubectl -n $NS patch memcached memcached --subresource=status --type=merge -p \
    "{\"status\":{\"readyCount\":1,\"serverList\":[\"memcached.$NS.svc:11211\"],\"serverListWithInet\":[\"inet:[memcached.$NS.svc]:11211\"],\"tlsSupport\":false}}" >/dev/null
  report_ready memcached memcached Ready
}

play_transport_url() { # name: what infra-operator does for a TransportURL, with oslo.messaging's
  # in-process `fake` driver as the URL (no RabbitMQ here; notifications go nowhere).
  local name=$1
  wait_for "TransportURL $name" kubectl -n $NS get transporturl "$name"
  kubectl -n $NS create secret generic "rabbitmq-transport-url-$name" --from-literal=transport_url=fake:// \
    --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl -n $NS patch transporturl "$name" --subresource=status --type=merge \
    -p "{\"status\":{\"secretName\":\"rabbitmq-transport-url-$name\"}}" >/dev/null
  report_ready transporturl "$name" TransportURLReady Ready
  log "infra-operator played for TransportURL $name (fake://)"
}

sample() { # resource name file: upstream's sample; with webhooks, as it is, and the Go mutating
  # webhook must have set containerImage (to the stand-in image the Deployment's env names)
  local resource=$1 name=$2 file=$3 image
  image=$(api_image "$name")
  if [ "$WEBHOOKS" = 1 ]; then
    [ "$(jq -r '.spec.containerImage // ""' < <(kubectl create --dry-run=client -o json -f "$file"))" = "" ] ||
      fail "$file sets containerImage"
    kubectl -n $NS create -f "$file" >/dev/null
    local got
    got=$(kubectl -n $NS get "$resource" "$name" -o jsonpath='{.spec.containerImage}')
    echo "Go mutating webhook live: $resource/$name created without containerImage, stored with $got" | tee -a "$RUN/webhooks-go.txt"
    [ "$got" = "$image" ] || fail "containerImage not defaulted by the Go webhook"
  else
    kubectl -n $NS create --dry-run=client -o json -f "$file" |
      jq --arg i "$image" '.spec.containerImage = $i' | kubectl -n $NS apply -f - >/dev/null
  fi
}

stage_upstream() {
  stage_infra
  log "the Go operators"
  kubectl create namespace $OPS --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  go_operator keystone-operator "$ks_short"
  go_operator placement-operator "$pl_short"

  log "upstream's samples$([ "$WEBHOOKS" = 1 ] && echo " as they are (the Go mutating webhooks default containerImage)" || echo " (containerImage: the stand-in images; no webhook defaults it)")"
  local ks_sample="$OUT/src/keystone-operator-$KEYSTONE_OPERATOR_COMMIT/config/samples/keystone_v1beta1_keystoneapi.yaml"
  local pl_sample="$OUT/src/placement-operator-$PLACEMENT_OPERATOR_COMMIT/config/samples/placement_v1beta1_placementapi.yaml"
  sample keystoneapi keystone "$ks_sample"
  play_mariadb keystone
  play_transport_url keystone-keystone-transport
  kubectl -n $NS wait --for=condition=Ready keystoneapi/keystone --timeout 600s ||
    { kubectl -n $NS get keystoneapi keystone -o yaml | sed -n '/^status:/,$p'; fail "KeystoneAPI not Ready under the Go operator"; }
  sample placementapi placement "$pl_sample"
  play_mariadb placement
  kubectl -n $NS wait --for=condition=Ready placementapi/placement --timeout 600s ||
    { kubectl -n $NS get placementapi placement -o yaml | sed -n '/^status:/,$p'; fail "PlacementAPI not Ready under the Go operator"; }
  if [ "$WEBHOOKS" = 1 ]; then
    webhooks_refuse "Go webhooks live" | tee -a "$RUN/webhooks-go.txt" || fail "the Go validating webhooks did not refuse"
  fi

  log "an application credential for placement's service user"
  kubectl -n $NS apply -f - >/dev/null <<YAML
apiVersion: keystone.openstack.org/v1beta1
kind: KeystoneApplicationCredential
metadata: {name: ac-placement}
spec:
  userName: placement
  secret: osp-secret
  passwordSelector: PlacementPassword
  expirationDays: 365
  gracePeriodDays: 182
  roles: [service]
  unrestricted: false
  accessRules: [{service: placement, path: "/**", method: GET}]
YAML
  kubectl -n $NS wait --for=condition=Ready keystoneapplicationcredential/ac-placement --timeout 300s ||
    { kubectl -n $NS get keystoneapplicationcredential ac-placement -o yaml | sed -n '/^status:/,$p'; fail "AC not Ready"; }
  log "a token issued under the Go operators"
  token_issue >"$RUN/token-go"
  snapshot go
  answers go | tee "$RUN/answers-go.txt"
  log "upstream's world is Ready"
}

# ---------------------------------------------------------------------------------------------
# Checks: Keystone and Placement answering, and what must not change.
# ---------------------------------------------------------------------------------------------
# Runs in the openstackclient pod (stand-in image: python3); prints the HTTP status or the token.
PY='
import json, sys, urllib.request, urllib.error
KS = "http://keystone-internal.'$NS'.svc:5000/v3"
def call(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.headers
def password(user, pw, project):
    return {"auth": {"identity": {"methods": ["password"], "password": {"user": {"name": user, "domain": {"name": "Default"}, "password": pw}}},
            "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}}
cmd = sys.argv[1]
if cmd == "issue":
    s, h = call("POST", KS + "/auth/tokens", password(sys.argv[2], sys.argv[3], "admin"))
    print(h["X-Subject-Token"] if s == 201 else "status %d" % s)
elif cmd == "validate":
    s, _ = call("GET", KS + "/auth/tokens", headers={"X-Auth-Token": sys.argv[2], "X-Subject-Token": sys.argv[2]})
    print(s)
elif cmd == "ac":
    s, _ = call("POST", KS + "/auth/tokens", {"auth": {"identity": {"methods": ["application_credential"], "application_credential": {"id": sys.argv[2], "secret": sys.argv[3]}}}})
    print(s)
elif cmd == "placement":
    s, _ = call("GET", "http://placement-internal.'$NS'.svc:8778/resource_providers", headers={"X-Auth-Token": sys.argv[2], "OpenStack-API-Version": "placement 1.6"})
    print(s)
'
py() { kubectl -n $NS exec openstackclient -- python3 -c "$PY" "$@"; }
admin_password() { kubectl -n $NS get secret osp-secret -o jsonpath='{.data.AdminPassword}' | base64 -d; }
token_issue() { py issue admin "$(admin_password)"; }

snapshot() { # label: what must not change, into $RUN/<label>/
  local d="$RUN/$1"
  mkdir -p "$d"
  kubectl -n $NS get pods -o json | jq -S '[.items[] | {name: .metadata.name, uid: .metadata.uid,
    restarts: ([.status.containerStatuses[]?.restartCount] | add), phase: .status.phase}] | sort_by(.name)' >"$d/pods.json"
  kubectl -n $NS get jobs -o json | jq -S '[.items[] | {name: .metadata.name, uid: .metadata.uid,
    created: .metadata.creationTimestamp, start: .status.startTime, succeeded: .status.succeeded,
    cron: (.metadata.ownerReferences // [] | any(.kind == "CronJob"))}] | sort_by(.name)' >"$d/jobs.json"
  # Every Job pod that still exists (the TTL takes a Job and its pods together); `cron`: of a
  # CronJob's scheduled Job (keystone-cron's hourly trust flush), which is no re-run.
  kubectl -n $NS get pods -l batch.kubernetes.io/job-name -o json | jq -S --slurpfile j "$d/jobs.json" '
    [$j[0][] | select(.cron) | .uid] as $cron | [.items[] | {job: .metadata.labels["batch.kubernetes.io/job-name"],
    name: .metadata.name, uid: .metadata.uid, created: .metadata.creationTimestamp,
    cron: (.metadata.labels["batch.kubernetes.io/controller-uid"] as $u | $cron | index($u) != null)}] | sort_by(.name)' >"$d/job-pods.json"
  kubectl -n $NS get keystoneapi keystone -o json | jq -S '{hash: .status.hash, conditions: [.status.conditions[] |
    select(.type == "DBSyncReady" or .type == "BootstrapReady") | {type, status, message}]}' >"$d/keystoneapi-jobs.json"
  kubectl -n $NS get placementapi placement -o json | jq -S '{hash: .status.hash, conditions: [.status.conditions[] |
    select(.type == "DBSyncReady") | {type, status, message}]}' >"$d/placementapi-jobs.json"
  kubectl -n $NS get deployments -o json | jq -S '[.items[] | {name: .metadata.name, uid: .metadata.uid,
    generation: .metadata.generation}] | sort_by(.name)' >"$d/deployments.json"
  kubectl -n $NS get secret keystone -o json | jq -S '.data' >"$d/keystone-keys.json"
  kubectl -n $NS get keystoneservices,keystoneendpoints,keystoneapplicationcredentials -o json |
    jq -S '[.items[] | {kind, name: .metadata.name, uid: .metadata.uid, finalizers: .metadata.finalizers,
      status: (.status // {} | del(.conditions, .observedGeneration, .lastRotated))}]' >"$d/keystone-objects.json"
  kubectl -n $NS get secrets -o json | jq -S '[.items[] | select(.metadata.name | startswith("ac-")) |
    {name: .metadata.name, uid: .metadata.uid, data}]' >"$d/ac-secrets.json"
  kubectl -n $NS exec mariadb-openstack -- bash -c 'MYSQL_PWD="$DB_ROOT_PASSWORD" exec mysqldump --no-defaults -h 127.0.0.1 -u root --skip-dump-date --skip-comments --order-by-primary --databases keystone placement' >"$d/db.sql"
  root_sql "SELECT user, host FROM mysql.user ORDER BY user, host" >"$d/db-users.txt"
}
compare() { # before after: prints each difference, returns 0 either way (the run records them)
  local f diffs=0
  for f in pods jobs deployments keystone-keys keystone-objects ac-secrets db-users; do
    local ext=json
    [ $f = db-users ] && ext=txt
    if ! diff -u "$RUN/$1/$f.$ext" "$RUN/$2/$f.$ext" >"$RUN/$2/diff-$f.txt"; then
      diffs=$((diffs + 1))
      echo "--- $f changed ($1 -> $2):"
      cat "$RUN/$2/diff-$f.txt"
    else
      echo "--- $f unchanged ($1 -> $2)"
    fi
  done
  if diff -u "$RUN/$1/db.sql" "$RUN/$2/db.sql" >"$RUN/$2/diff-db.txt"; then
    echo "--- database unchanged ($1 -> $2: mysqldump of keystone and placement identical, $(wc -c <"$RUN/$2/db.sql") bytes)"
  else
    echo "--- database changed ($1 -> $2): $(grep -c '^[-+][^-+]' "$RUN/$2/diff-db.txt") lines, tables: $(grep -o '^[-+]INSERT INTO `[a-z_]*`' "$RUN/$2/diff-db.txt" | sort -u | tr '\n' ' ')"
  fi
}
jobs_rerun() { # before after: the Jobs and Job pods created between the two snapshots (CronJobs' aside), the adoption Events
  local new_jobs new_pods
  new_jobs=$(jq -r --slurpfile b "$RUN/$1/jobs.json" '[$b[0][].uid] as $old | [.[] | select(.cron | not) |
    select(.uid as $u | $old | index($u) | not) | "\(.name) (created \(.created))"] | join(", ")' "$RUN/$2/jobs.json")
  new_pods=$(jq -r --slurpfile b "$RUN/$1/job-pods.json" '[$b[0][].uid] as $old | [.[] | select(.cron | not) |
    select(.uid as $u | $old | index($u) | not) | .name] | join(", ")' "$RUN/$2/job-pods.json")
  echo "CronJob runs between $1 and $2 (scheduled, not re-runs): $(jq -r --slurpfile b "$RUN/$1/jobs.json" '[$b[0][].uid] as $old |
    [.[] | select(.cron) | select(.uid as $u | $old | index($u) | not) | .name] | join(", ")' "$RUN/$2/jobs.json")"
  echo "Jobs before ($1): $(jq -r '[.[] | "\(.name) \(.uid[0:8]) created \(.created)"] | join("; ")' "$RUN/$1/jobs.json")"
  echo "Jobs after ($2): $(jq -r '[.[] | "\(.name) \(.uid[0:8]) created \(.created)"] | join("; ")' "$RUN/$2/jobs.json")"
  echo "Job pods before: $(jq length "$RUN/$1/job-pods.json"), after: $(jq length "$RUN/$2/job-pods.json")"
  echo "Jobs created between $1 and $2: ${new_jobs:-none}"
  echo "Job pods created between $1 and $2: ${new_pods:-none}"
  echo "JobRunAdopted Events: $(kubectl -n $NS get events --field-selector reason=JobRunAdopted -o json |
    jq -r '[.items[] | "\(.involvedObject.kind)/\(.involvedObject.name): \(.message)"] | join("; ")')"
  echo "KeystoneAPI Job conditions: $(jq -c .conditions "$RUN/$2/keystoneapi-jobs.json")"
  echo "PlacementAPI Job conditions: $(jq -c .conditions "$RUN/$2/placementapi-jobs.json")"
  [ -z "$new_jobs$new_pods" ]
}

answers() { # label: Keystone and Placement answer; the Go-era token and the AC still work
  local t ac_id ac_secret secret
  t=$(token_issue)
  echo "new admin token issued: ${#t} chars"
  echo "token from the Go operators validates: HTTP $(py validate "$(cat "$RUN/token-go")")"
  echo "placement answers with a new token: HTTP $(py placement "$t")"
  secret=$(kubectl -n $NS get keystoneapplicationcredential ac-placement -o jsonpath='{.status.secretName}')
  ac_id=$(kubectl -n $NS get secret "$secret" -o jsonpath='{.data.AC_ID}' | base64 -d)
  ac_secret=$(kubectl -n $NS get secret "$secret" -o jsonpath='{.data.AC_SECRET}' | base64 -d)
  echo "application credential $ac_id (Secret $secret) authenticates: HTTP $(py ac "$ac_id" "$ac_secret")"
}

ready_converged() { # kind name: Ready True with observedGeneration == generation
  local kind=$1 name=$2 t=0
  while :; do
    local s
    s=$(kubectl -n $NS get "$kind" "$name" -o json | jq -r '[.metadata.generation == .status.observedGeneration,
      ((.status.conditions // [])[] | select(.type == "Ready") | .status == "True")] | all')
    [ "$s" = true ] && return 0
    t=$((t + 2))
    [ $t -gt 600 ] && { kubectl -n $NS get "$kind" "$name" -o yaml | sed -n '/^status:/,$p'; fail "$kind $name not converged"; }
    sleep 2
  done
}

stage_switch() {
  eval "$(kube_env env --name "$CLUSTER")"
  local t0=$SECONDS
  log "B1 back up"
  kubectl get keystoneapis,keystoneservices,keystoneendpoints,keystoneapplicationcredentials,placementapis -A -o yaml >"$RUN/backup.yaml"
  kubectl get secrets -A -l application-credentials=true -o yaml >>"$RUN/backup.yaml"
  log "B2 stop the Go operators"
  kubectl -n $OPS scale deployment keystone-operator-controller-manager --replicas=0
  kubectl -n $OPS scale deployment placement-operator-controller-manager --replicas=0
  kubectl -n $OPS wait --for=delete pod -l control-plane=controller-manager --timeout 120s
  if [ "$WEBHOOKS" = 1 ]; then
    # Why B3: with the Go operators gone, their webhooks (failurePolicy Fail) refuse any write.
    local out
    if out=$(kubectl -n $NS label keystoneapi keystone stackops-switch/probe=1 --dry-run=server 2>&1); then
      fail "a KeystoneAPI update passed with the Go operator stopped and its webhooks in place: $out"
    fi
    echo "before B3, Go operators stopped: KeystoneAPI update refused: $out" | tee "$RUN/webhooks-b3.txt"
  fi
  log "B3 webhook configurations naming keystone/placement groups: a copy for the way back, then deleted"
  kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o json |
    jq '.items |= map(select([.webhooks[].rules[]?.apiGroups[]?] | any(. == "keystone.openstack.org" or . == "placement.openstack.org"))
      | del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.generation, .metadata.managedFields))' \
      >"$RUN/go-webhooks.json"
  kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name |
    xargs -r -n1 kubectl get -o json |
    jq -r 'select([.webhooks[].rules[]?.apiGroups[]?] | any(. == "keystone.openstack.org" or . == "placement.openstack.org")) | "\(.kind | ascii_downcase)/\(.metadata.name)"' |
    xargs -r kubectl delete | tee -a "$RUN/webhooks-b3.txt"
  if [ "$WEBHOOKS" = 1 ]; then
    [ "$(grep -c deleted "$RUN/webhooks-b3.txt")" = 4 ] || fail "B3 did not delete the 4 Go webhook configurations"
    [ "$(jq '[.items[] | select(.webhooks[0].clientConfig.caBundle)] | length' "$RUN/go-webhooks.json")" = 4 ] ||
      fail "B3's copy does not hold the 4 configurations with their caBundle"
  fi
  log "B4 replace the CRDs"
  for f in "$repo"/charts/keystone-operator/crds/*.yaml "$repo"/charts/placement-operator/crds/*.yaml; do
    kubectl replace -f "$f" || kubectl create -f "$f"
  done
  log "B5 the CRs against the new schema (a no-op label write each)"
  local kind
  for kind in keystoneapis keystoneservices keystoneendpoints keystoneapplicationcredentials placementapis; do
    kubectl -n $NS label "$kind" --all stackops-switch/checked=true --overwrite
  done
  stage_install
}

stage_install() { # B6 and the checks after it (re-runnable: `run.sh install`)
  eval "$(kube_env env --name "$CLUSTER")"
  local t0=$SECONDS
  # B5 of the guide: upstream made a TransportURL for cluster `rabbitmq` although the sample sets no
  # notificationsBus; stackops makes none and would delete it, which its chart's RBAC does not allow
  # (found by this run: KeystoneAPI Ready False, "cannot delete resource transporturls").
  kubectl -n $NS delete transporturl keystone-keystone-transport --ignore-not-found
  # Keystone objects the Go operator made carry no stackops ownership marker: without this
  # annotation stackops refuses them (NotOwned; found by this run), with it adopts them.
  kubectl -n $NS annotate keystoneservices,keystoneendpoints --all keystone.openstack.org/adopt=true --overwrite
  log "B6 install stackops' operators (umbrella chart; from a checkout its subcharts are packed first)"
  helm dependency build "$repo/charts/stackops" --skip-refresh >/dev/null
  helm upgrade --install stackops "$repo/charts/stackops" -n stackops --create-namespace \
    --set keystone.enabled=true --set placement.enabled=true \
    --set networkaddons.enabled=false --set sip.enabled=false \
    --set "keystone.relatedImages.keystoneAPI=$(api_image keystone)" --set "keystone.relatedImages.mariadb=$(image mariadb)" \
    --set "placement.relatedImages.placementAPI=$(api_image placement)" --set "placement.relatedImages.mariadb=$(image mariadb)" \
    --wait --timeout 5m
  ready_converged keystoneapi keystone
  ready_converged placementapi placement
  ready_converged keystoneapplicationcredential ac-placement
  log "converged $((SECONDS - t0)) s after B6; waiting 60 s for late writes"
  sleep 60
  snapshot stackops
  compare go stackops | tee "$RUN/compare-go-stackops.txt"
  # The Go operators' finished db-sync/bootstrap runs are adopted (ADR 0048): no Job may run again.
  jobs_rerun go stackops | tee "$RUN/jobs-go-stackops.txt" ||
    fail "a Job ran again at the switch (see $RUN/jobs-go-stackops.txt)"
  answers stackops | tee "$RUN/answers-stackops.txt"
  log "operand rollouts (ReplicaSets per Deployment):"
  kubectl -n $NS get replicasets -o custom-columns=NAME:.metadata.name,DESIRED:.spec.replicas,CREATED:.metadata.creationTimestamp | tee "$RUN/replicasets-stackops.txt"
}

stage_back() {
  eval "$(kube_env env --name "$CLUSTER")"
  local t0=$SECONDS
  log "way back: uninstall stackops, upstream's CRDs, the Go operators at 1"
  helm uninstall stackops -n stackops --wait
  apply_upstream_crds replace
  if [ "$WEBHOOKS" = 1 ]; then
    # The copy B3 kept (caBundle included), before the Go operators are up again, as the guide says.
    kubectl create -f "$RUN/go-webhooks.json"
  fi
  kubectl -n $OPS scale deployment keystone-operator-controller-manager --replicas=1
  kubectl -n $OPS scale deployment placement-operator-controller-manager --replicas=1
  kubectl -n $OPS rollout status deployment keystone-operator-controller-manager --timeout 180s
  kubectl -n $OPS rollout status deployment placement-operator-controller-manager --timeout 180s
  # The Go operator makes its TransportURL again (deleted at B5): infra-operator's part, played.
  play_transport_url keystone-keystone-transport
  ready_converged keystoneapi keystone
  ready_converged placementapi placement
  ready_converged keystoneapplicationcredential ac-placement
  log "converged $((SECONDS - t0)) s after uninstall; waiting 60 s for late writes"
  sleep 60
  snapshot back
  compare stackops back | tee "$RUN/compare-stackops-back.txt"
  compare go back | tee "$RUN/compare-go-back.txt"
  # The Go operators compare their own hash, which ours never equals: the way back re-runs the Jobs (recorded, not failed).
  jobs_rerun stackops back | tee "$RUN/jobs-stackops-back.txt" || true
  answers back | tee "$RUN/answers-back.txt"
  if [ "$WEBHOOKS" = 1 ]; then
    webhooks_refuse "Go webhooks live after the way back" | tee "$RUN/webhooks-back.txt" || fail "the Go validating webhooks did not refuse after the way back"
  fi
}

# Sourced (`. run.sh`), it only defines the stages and helpers.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
case ${1:-all} in
  up) stage_up ;;
  infra) stage_infra ;;
  upstream) stage_upstream ;;
  switch) stage_switch ;;
  install) stage_install ;;
  back) stage_back ;;
  all) stage_up && stage_upstream && stage_switch && stage_back ;;
  *) fail "unknown stage $1" ;;
esac
