/** Where the jump host mounts the hosts file (BMC addresses and credentials). */
export const HOSTS_FILE = '/etc/opt/sip/hosts';

/**
 * `host`, the jump host's utility: `host list` prints the hosts; `host status <name>` prints a
 * host's power state and `host reboot <name>` restarts it, through its BMC (redfishtool for Redfish
 * drivers, ipmitool for IPMI). Reads the hosts file with jq. Redfish: the BMC's host and port, TLS
 * unless the address says `+http`, and the system the address names (`…/Systems/<id>`).
 */
export const HOST_SCRIPT = `#!/bin/sh
# host - list the tenant cluster's hosts, show one's power state or reboot it through its BMC.
set -eu
HOSTS_FILE="\${HOSTS_FILE:-${HOSTS_FILE}}"

usage() {
  echo "usage: host list | host status <name> | host reboot <name>" >&2
  exit 2
}

bmc() {
  jq -er --arg name "$1" --arg field "$2" '.[] | select(.name == $name) | .bmc[$field] // empty' "$HOSTS_FILE"
}

# redfish <name> <redfishtool Systems command...>
redfish() {
  name="$1"
  shift
  address="$(bmc "$name" address)"
  case "$address" in
    *+http://*) secure=Never ;;
    *) secure=Always ;;
  esac
  case "$address" in
    */Systems/?*)
      system="\${address##*/Systems/}"
      set -- -I "\${system%%/*}" "$@"
      ;;
  esac
  redfishtool -r "$(bmc "$name" ip)" -S "$secure" -u "$(bmc "$name" username)" -p "$(bmc "$name" password)" Systems "$@"
}

# ipmi <name> <ipmitool arguments...>
ipmi() {
  name="$1"
  shift
  port="$(bmc "$name" port || true)"
  IPMI_PASSWORD="$(bmc "$name" password)" ipmitool -I lanplus -H "$(bmc "$name" hostname)" -p "\${port:-623}" \\
    -U "$(bmc "$name" username)" -E "$@"
}

[ "$#" -ge 1 ] || usage
case "$1" in
  list)
    jq -r '.[].name' "$HOSTS_FILE"
    exit 0
    ;;
  status | reboot)
    [ "$#" -eq 2 ] || usage
    ;;
  *)
    usage
    ;;
esac
command="$1"
name="$2"
if ! jq -e --arg name "$name" 'any(.[]; .name == $name and .bmc != null)' "$HOSTS_FILE" >/dev/null; then
  echo "host: no host named $name with a BMC" >&2
  exit 1
fi
case "$(bmc "$name" protocol)/$command" in
  redfish/status)
    state="$(redfish "$name" get | jq -er '.PowerState')"
    echo "$name: power $state"
    ;;
  redfish/reboot)
    redfish "$name" reset GracefulRestart
    ;;
  ipmi/status)
    ipmi "$name" chassis power status
    ;;
  ipmi/reboot)
    ipmi "$name" chassis power cycle
    ;;
  *)
    echo "host: BMC driver $(bmc "$name" driver) of $name is not supported" >&2
    exit 1
    ;;
esac
`;
