# The jump host's user (uid 1000, as upstream's `useradd -m ubuntu`) with a ~/.ssh it owns: the pod
# mounts files into it, and the runtime keeps an existing directory's owner (a missing one would be
# created root's, and ssh could not write known_hosts).
chmod 755 /usr/local/bin/jump-host-start
# SIP mounts its `host` utility in /opt/sip/bin: on the PATH of ssh sessions too (pam_env reads
# /etc/environment; the image's own PATH covers kubectl exec).
echo 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/sip/bin"' >/etc/environment
useradd --no-log-init --uid 1000 --user-group --create-home --shell /bin/bash ubuntu
install -d -m 0700 -o ubuntu -g ubuntu /home/ubuntu/.ssh
# openssh-server's postinst generated host keys: they go (jump-host-start makes them per pod).
rm -f /etc/ssh/ssh_host_*
pip_wheel=$(ls /run/wheels/pip-*.whl)
PYTHONDONTWRITEBYTECODE=1 python3 "$pip_wheel/pip" install --no-index --find-links /run/wheels --no-compile --no-cache-dir \
  --break-system-packages --root-user-action=ignore --disable-pip-version-check --no-warn-script-location \
  -r /run/wheels/requirements.txt -c /run/wheels/constraints.txt
PYTHONDONTWRITEBYTECODE=1 python3 -m compileall -f -q -j 0 --invalidation-mode checked-hash /usr/local/lib/python3.11/dist-packages
redfishtool -h >/dev/null
