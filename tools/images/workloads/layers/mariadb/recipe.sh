# MariaDB (Debian's 10.11) for the stand-in openstack-mariadb image. Runs in the chroot as root
# (build-layer.sh).

chmod 755 /usr/local/bin/mariadb-standalone
# The package initialises a data directory at installation; the image starts empty (as TCIB's
# does) and mariadb-standalone initialises it with the root password it is given.
find /var/lib/mysql -mindepth 1 -delete
install -d -m 0755 -o mysql -g mysql /var/lib/mysql /run/mysqld
# Offline table tools, benchmarks and converters (5 MB each) that a database for tests never runs;
# then the compatibility links left dangling.
rm -f /usr/bin/aria_* /usr/bin/myisam* /usr/bin/mariadb-slap /usr/bin/mariadb-binlog /usr/bin/mariadb-conv \
  /usr/bin/mariadb-plugin /usr/bin/mariadb-import /usr/bin/mariadb-show /usr/bin/mariadb-check \
  /usr/bin/innochecksum /usr/bin/perror /usr/bin/replace /usr/bin/mariadb-waitpid /usr/bin/resolve_stack_dump
find /usr/bin -xtype l -delete
