# The openstack CLI for cloud-admin (TCIB openstackclient image): clouds.yaml and secure.yaml are
# read from ~/.config/openstack. Runs in the chroot as root (build-layer.sh).

install -d -m 0755 -o cloud-admin -g cloud-admin /home/cloud-admin/.config /home/cloud-admin/.config/openstack

# TCIB has the CLI at /usr/bin/openstack; scripts that empty the environment (`env - openstack …`)
# find it only there, as execvp then searches /bin:/usr/bin.
ln -s /usr/local/bin/openstack /usr/bin/openstack
