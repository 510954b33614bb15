# Base of every stand-in image: the users and directories the TCIB images have, kolla's start
# scripts. Runs in the chroot as root (build-layer.sh).

chmod 755 /usr/local/bin/kolla_start /usr/local/bin/kolla_set_configs /usr/local/bin/kolla_extend_start
chmod 440 /etc/sudoers

# The UIDs/GIDs of the TCIB/kolla images (kolla's users list; apache is RHEL's 48). Each service
# user is in group kolla, which may sudo kolla_set_configs.
add_group() { groupadd --gid "$2" "$1"; }
add_user() { # name uid home [extra groups]
  useradd --no-log-init --uid "$2" --gid "$2" --home-dir "$3" --no-create-home \
    --shell /usr/sbin/nologin ${4:+--groups "$4"} "$1"
  mkdir -p "$3"
  chown "$2:$2" "$3"
}
add_group kolla 42400
add_group apache 48
useradd --no-log-init --uid 48 --gid 48 --home-dir /usr/share/httpd --no-create-home \
  --shell /usr/sbin/nologin apache
for u in keystone:42425:/var/lib/keystone placement:42482:/var/lib/placement mysql:42434:/var/lib/mysql \
  cloud-admin:42401:/home/cloud-admin; do
  IFS=: read -r name id home <<<"$u"
  add_group "$name" "$id"
  add_user "$name" "$id" "$home" kolla
done
# The openstackclient image starts an interactive shell for cloud-admin.
usermod --shell /bin/bash cloud-admin

# Where kolla mounts config.json, and the RHEL paths the operators' TLS mounts use.
mkdir -p /var/lib/kolla/config_files /openstack /etc/pki/tls/certs /etc/pki/tls/private \
  /etc/pki/ca-trust/extracted/pem
# 0755 as RHEL ships it (the key files carry their own 0600): httpd, running as the service user,
# must reach the keys kolla copies there.
chmod 755 /etc/pki/tls/private
ln -sf /etc/ssl/certs/ca-certificates.crt /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem
