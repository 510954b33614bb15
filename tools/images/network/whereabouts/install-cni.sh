#!/bin/sh
# Installs the whereabouts IPAM plugin on the node this pod runs on: the binary into the node's
# CNI bin folder, and a kubeconfig (the pod's service account) with the flat configuration file
# whereabouts reads, into <conf dir>/whereabouts.d. The token is copied again every minute because
# kubelet rotates the projected one. Mount the node's folders at /host/opt/cni/bin and
# /host/etc/cni/net.d. Written for stackops; not upstream's script.
set -eu
BIN_DIR=/host/opt/cni/bin
CONF_DIR=/host/etc/cni/net.d/whereabouts.d
NODE_CONF_DIR=${WHEREABOUTS_NODE_CONF_DIR:-/etc/cni/net.d/whereabouts.d}
SA=/var/run/secrets/kubernetes.io/serviceaccount

cp -f /whereabouts "$BIN_DIR/whereabouts.tmp"
mv -f "$BIN_DIR/whereabouts.tmp" "$BIN_DIR/whereabouts"
mkdir -p "$CONF_DIR"
chmod 700 "$CONF_DIR"

write_config() {
  cat > "$CONF_DIR/whereabouts.kubeconfig.tmp" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://${KUBERNETES_SERVICE_HOST}:${KUBERNETES_SERVICE_PORT}
    certificate-authority-data: $(base64 -w0 < "$SA/ca.crt")
users:
- name: whereabouts
  user:
    token: $(cat "$SA/token")
contexts:
- name: whereabouts-context
  context:
    cluster: local
    user: whereabouts
current-context: whereabouts-context
KUBECONFIG
  mv -f "$CONF_DIR/whereabouts.kubeconfig.tmp" "$CONF_DIR/whereabouts.kubeconfig"
  cat > "$CONF_DIR/whereabouts.conf.tmp" <<CONF
{
  "datastore": "kubernetes",
  "kubernetes": { "kubeconfig": "$NODE_CONF_DIR/whereabouts.kubeconfig" }
}
CONF
  mv -f "$CONF_DIR/whereabouts.conf.tmp" "$CONF_DIR/whereabouts.conf"
}

write_config
echo "whereabouts installed"
while sleep 60; do write_config; done
