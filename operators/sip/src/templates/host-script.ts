/** Where the jump host mounts the hosts file (BMC addresses and credentials). */
export const HOSTS_FILE = '/etc/opt/sip/hosts';

/**
 * `host`, the jump host's utility: `host list` prints the hosts; `host reboot <name>` restarts one
 * through its BMC (redfishtool for Redfish drivers, ipmitool for IPMI). Reads the hosts file with jq.
 */
export const HOST_SCRIPT = `#!/bin/sh
# host - list the tenant cluster's hosts, or reboot one through its BMC.
set -eu
HOSTS_FILE="\${HOSTS_FILE:-${HOSTS_FILE}}"

usage() {
  echo "usage: host list | host reboot <name>" >&2
  exit 2
}

bmc() {
  jq -er --arg name "$1" --arg field "$2" '.[] | select(.name == $name) | .bmc[$field] // empty' "$HOSTS_FILE"
}

case "\${1:-}" in
  list)
    jq -r '.[].name' "$HOSTS_FILE"
    ;;
  reboot)
    [ "$#" -eq 2 ] || usage
    name="$2"
    if ! jq -e --arg name "$name" 'any(.[]; .name == $name and .bmc != null)' "$HOSTS_FILE" >/dev/null; then
      echo "host: no host named $name with a BMC" >&2
      exit 1
    fi
    protocol="$(bmc "$name" protocol)"
    user="$(bmc "$name" username)"
    pass="$(bmc "$name" password)"
    case "$protocol" in
      redfish)
        redfishtool -r "$(bmc "$name" ip)" -u "$user" -p "$pass" Systems reset GracefulRestart
        ;;
      ipmi)
        port="$(bmc "$name" port || true)"
        IPMI_PASSWORD="$pass" ipmitool -I lanplus -H "$(bmc "$name" hostname)" -p "\${port:-623}" -U "$user" -E chassis power cycle
        ;;
      *)
        echo "host: BMC driver $(bmc "$name" driver) of $name is not supported" >&2
        exit 1
        ;;
    esac
    ;;
  *)
    usage
    ;;
esac
`;
