# Placement on httpd: the paths of the TCIB placement-api image. Runs in the chroot as root
# (build-layer.sh).

chmod 755 /usr/bin/placement-api
install -d -m 0750 -o root -g placement /etc/placement
install -d -m 0750 -o placement -g placement /var/log/placement
install -m 0640 -o root -g placement /dev/null /etc/placement/placement.conf
install -d -m 0755 /var/www/cgi-bin/placement
