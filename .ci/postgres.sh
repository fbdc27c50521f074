#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster on 127.0.0.1 for the test suite and prints its URL.
#   .ci/postgres.sh start PORT   -> prints postgres://postgres@127.0.0.1:PORT/pawpack_test
#   .ci/postgres.sh stop         -> stops the cluster started last
# Needs the Debian `postgresql` package; runs the server as the `postgres` user it creates.
set -euo pipefail
state=/tmp/pawpack-ci-postgres
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

case "${1:-}" in
start)
  port=${2:-55432}
  "$0" stop >/dev/null 2>&1 || true
  rm -rf "$state" && mkdir -p "$state" && chown postgres "$state"
  su postgres -c "$pgbin/initdb -D $state/data -A trust -U postgres --no-sync" >/dev/null
  # Every test gets its own database (from a migrated template) and pool, in parallel.
  su postgres -c "$pgbin/pg_ctl -D $state/data -l $state/server.log -w \
    -o '-c listen_addresses=127.0.0.1 -p $port -k $state -c max_connections=2000 -c fsync=off' start" >/dev/null
  su postgres -c "$pgbin/createdb -h 127.0.0.1 -p $port pawpack_test"
  echo "postgres://postgres@127.0.0.1:$port/pawpack_test"
  ;;
stop)
  [ -d "$state/data" ] && su postgres -c "$pgbin/pg_ctl -D $state/data -m fast -w stop" >/dev/null
  ;;
*)
  echo "usage: $0 start [PORT] | stop" >&2
  exit 2
  ;;
esac
