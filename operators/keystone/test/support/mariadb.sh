#!/usr/bin/env bash
# A private MariaDB server for tests, on 127.0.0.1 only.
#
#   mariadb.sh install          install Debian's mariadb-server when mariadbd is missing (needs root)
#   mariadb.sh start <dir>      install if needed, then start mariadbd with its data under <dir>, on a free
#                               loopback port; prints PORT=, SOCKET=, PID=, ROOT_PASSWORD= lines
#   mariadb.sh stop <dir>       stop the server started with <dir>
#
# Idempotent: `start` on a running <dir> prints the same values again. The packaged service is never
# started (policy-rc.d blocks it during installation).
set -euo pipefail

find_server() { command -v mariadbd || command -v mysqld || ls /usr/sbin/mariadbd 2>/dev/null || true; }

install_server() {
  [[ -n "$(find_server)" ]] && return 0
  if [[ $(id -u) -ne 0 ]]; then
    echo "mariadb-server is not installed and this is not root: run 'apt-get install -y mariadb-server' as root" >&2
    exit 2
  fi
  local created_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    created_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mariadb-server mariadb-client >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mariadb-server mariadb-client >&2; }
  [[ $created_policy -eq 1 ]] && rm -f /usr/sbin/policy-rc.d
  [[ -n "$(find_server)" ]] || { echo "mariadbd not found after installation" >&2; exit 1; }
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

print_env() { cat "$1/env"; }

start_server() {
  local dir=$1
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [[ -f "$dir/env" && -f "$dir/mariadbd.pid" ]] && kill -0 "$(cat "$dir/mariadbd.pid")" 2>/dev/null; then
    print_env "$dir"
    return 0
  fi
  install_server
  local server user=()
  server=$(find_server)
  [[ $(id -u) -eq 0 ]] && user=(--user=root)
  if [[ ! -d "$dir/data/mysql" ]]; then
    mkdir -p "$dir/data"
    mariadb-install-db --no-defaults "${user[@]}" --datadir="$dir/data" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1
  fi
  local port password
  port=$(free_port)
  password=${MARIADB_ROOT_PASSWORD:-root-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')}
  "$server" --no-defaults "${user[@]}" --datadir="$dir/data" --socket="$dir/mariadbd.sock" \
    --pid-file="$dir/mariadbd.pid" --bind-address=127.0.0.1 --port="$port" --skip-name-resolve \
    --log-error="$dir/error.log" --innodb-buffer-pool-size=32M --performance-schema=OFF >/dev/null 2>&1 &
  local i
  for i in $(seq 1 100); do
    mariadb-admin --no-defaults --socket="$dir/mariadbd.sock" -u root ping >/dev/null 2>&1 && break
    [[ -n "$(cat "$dir/ROOT_PASSWORD" 2>/dev/null)" ]] &&
      MYSQL_PWD=$(cat "$dir/ROOT_PASSWORD") mariadb-admin --no-defaults --socket="$dir/mariadbd.sock" -u root ping >/dev/null 2>&1 && break
    sleep 0.2
  done
  if [[ ! -f "$dir/ROOT_PASSWORD" ]]; then
    mariadb --no-defaults --socket="$dir/mariadbd.sock" -u root \
      -e "ALTER USER 'root'@'localhost' IDENTIFIED BY '$password'; CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '$password'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; FLUSH PRIVILEGES;"
    printf '%s' "$password" >"$dir/ROOT_PASSWORD"
  fi
  MYSQL_PWD=$(cat "$dir/ROOT_PASSWORD") mariadb-admin --no-defaults --socket="$dir/mariadbd.sock" -u root ping >/dev/null
  printf 'PORT=%s\nSOCKET=%s\nPID=%s\nROOT_PASSWORD=%s\n' "$port" "$dir/mariadbd.sock" "$(cat "$dir/mariadbd.pid")" \
    "$(cat "$dir/ROOT_PASSWORD")" >"$dir/env"
  print_env "$dir"
}

stop_server() {
  local dir=$1
  [[ -f "$dir/mariadbd.pid" ]] || return 0
  local pid
  pid=$(cat "$dir/mariadbd.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$dir/env"
}

case "${1:-}" in
  install) install_server ;;
  start) start_server "${2:?usage: mariadb.sh start <dir>}" ;;
  stop) stop_server "${2:?usage: mariadb.sh stop <dir>}" ;;
  *) echo "usage: mariadb.sh install | start <dir> | stop <dir>" >&2; exit 2 ;;
esac
