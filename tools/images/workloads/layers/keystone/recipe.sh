# Keystone on httpd: the paths of the TCIB keystone image. Runs in the chroot as root (build-layer.sh).

chmod 755 /usr/bin/keystone-wsgi-public /usr/bin/keystone-wsgi-admin
install -d -m 0750 -o root -g keystone /etc/keystone
install -d -m 0750 -o keystone -g keystone /var/log/keystone
# RDO's package ships a keystone.conf (all defaults); the operators' config replaces it.
install -m 0640 -o root -g keystone /dev/null /etc/keystone/keystone.conf
# The TCIB image copies the WSGI scripts under the httpd document root too.
install -d -m 0755 -o keystone -g root /var/www/cgi-bin/keystone
cp -a /usr/bin/keystone-wsgi-public /var/www/cgi-bin/keystone/main
cp -a /usr/bin/keystone-wsgi-admin /var/www/cgi-bin/keystone/admin
chown keystone /var/www/cgi-bin/keystone/main /var/www/cgi-bin/keystone/admin
