# httpd in RHEL's layout on top of Debian's apache2 binary (the stand-in for the TCIB images' httpd,
# mod_ssl and python3-mod_wsgi). Runs in the chroot as root (build-layer.sh).

chmod 755 /usr/sbin/httpd
# RHEL's links under the server root, and the owners and modes RHEL's httpd package gives them.
ln -s /usr/lib/apache2/modules /etc/httpd/modules
ln -s /var/log/httpd /etc/httpd/logs
ln -s /run/httpd /etc/httpd/run
ln -s /var/lib/httpd /etc/httpd/state
install -d -m 0710 -o root -g apache /run/httpd
install -d -m 0700 -o root -g apache /run/httpd/htcacheclean
install -d -m 0700 -o root -g root /var/log/httpd
install -d -m 0700 -o apache -g apache /var/lib/httpd
install -d -m 0755 /var/www/html /var/www/cgi-bin /usr/share/httpd
chmod 644 /etc/httpd/conf/httpd.conf /etc/httpd/conf.d/*.conf /etc/httpd/conf.modules.d/*.conf
