# The official haproxy image reads /usr/local/etc/haproxy/haproxy.cfg (SIP mounts its Secret there);
# Debian's default configuration and its init scripts are not used.
mkdir -p /usr/local/etc/haproxy /run/haproxy
rm -f /etc/haproxy/haproxy.cfg
