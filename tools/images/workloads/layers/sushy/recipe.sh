# sushy-tools' Redfish emulator (sushy-emulator), from its PyPI wheels: a BMC for the SIP tests.
pip_wheel=$(ls /run/wheels/pip-*.whl)
PYTHONDONTWRITEBYTECODE=1 python3 "$pip_wheel/pip" install --no-index --find-links /run/wheels --no-compile --no-cache-dir \
  --break-system-packages --root-user-action=ignore --disable-pip-version-check --no-warn-script-location \
  -r /run/wheels/requirements.txt -c /run/wheels/constraints.txt
PYTHONDONTWRITEBYTECODE=1 python3 -m compileall -f -q -j 0 --invalidation-mode checked-hash /usr/local/lib/python3.11/dist-packages
sushy-emulator --help >/dev/null
