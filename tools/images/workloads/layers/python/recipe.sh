# Installs the wheels of requirements.txt (pinned by constraints.txt) into Debian's python3.11 under
# /usr/local, where mod_wsgi's interpreter finds them. The wheelhouse is mounted at /run/wheels with
# pip's own wheel; pip itself stays out of the image. Runs in the chroot as root (build-layer.sh).

pip_wheel=$(ls /run/wheels/pip-*.whl)
PYTHONDONTWRITEBYTECODE=1 python3 "$pip_wheel/pip" install --no-index --find-links /run/wheels --no-compile --no-cache-dir \
  --break-system-packages --root-user-action=ignore --disable-pip-version-check --no-warn-script-location \
  -r /run/wheels/requirements.txt -c /run/wheels/constraints.txt
# The packages' own test suites (about 60 MB) and C headers are not needed to run anything.
find /usr/local/lib/python3.11/dist-packages -mindepth 2 -maxdepth 2 -type d -name tests -exec rm -rf {} +
rm -rf /usr/include/python3.11 /usr/local/include
# Byte-compile once, reproducibly (hash-based .pyc), so services do not compile at every start.
# (-f: python3 itself has already imported, and cached, what distutils-precedence.pth loads)
PYTHONDONTWRITEBYTECODE=1 python3 -m compileall -f -q -j 0 --invalidation-mode checked-hash /usr/local/lib/python3.11/dist-packages
PYTHONDONTWRITEBYTECODE=1 python3 -c 'import keystone.server.wsgi, placement.wsgi, openstackclient.shell, pymysql, memcache'
