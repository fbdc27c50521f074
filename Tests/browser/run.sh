#!/usr/bin/env bash
# Runs the browser tests against a freshly started Pawpack server.
#
#   Tests/browser/run.sh [path/to/pawpack]      (default: .build/debug/pawpack)
#
# The server gets an empty data directory and a free port, logs to
# artifacts/browser-server.log, and is always stopped on exit. Exits with pytest's status.
# Extra pytest arguments can be passed in PYTEST_ARGS (e.g. PYTEST_ARGS="-k layout").
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# A binary given as $1 is relative to where run.sh was called from; the default to the repo.
if [[ $# -ge 1 ]]; then
    BIN="$1"
    if bin_dir="$(cd "$(dirname "$1")" 2>/dev/null && pwd)"; then
        BIN="$bin_dir/$(basename "$1")"
    fi
else
    BIN="$REPO_ROOT/.build/debug/pawpack"
fi
cd "$REPO_ROOT"
if [[ ! -x "$BIN" ]]; then
    echo "run.sh: server binary '$BIN' not found or not executable (build it first)" >&2
    exit 2
fi

ARTIFACTS="$REPO_ROOT/artifacts"
mkdir -p "$ARTIFACTS"
SERVER_LOG="$ARTIFACTS/browser-server.log"
DATA_DIR="$(mktemp -d -t pawpack-browser-data.XXXXXX)"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
BASE_URL="http://127.0.0.1:$PORT"
SERVER_PID=""

cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$DATA_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

show_server_log() {
    echo "----- last 80 lines of $SERVER_LOG -----" >&2
    tail -n 80 "$SERVER_LOG" >&2 || true
    echo "-----------------------------------------" >&2
}

echo "run.sh: starting $BIN on $BASE_URL (data in $DATA_DIR, log in $SERVER_LOG)"
PAWPACK_ENV=development \
PAWPACK_DATA_DIR="$DATA_DIR" \
PAWPACK_BCRYPT_COST=10 \
PAWPACK_MAIL_REQUESTS_PER_HOUR=1000 \
    "$BIN" serve --hostname 127.0.0.1 --port "$PORT" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

ready=""
deadline=$((SECONDS + 60))
while (( SECONDS < deadline )); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "run.sh: the server exited before it became healthy" >&2
        show_server_log
        exit 1
    fi
    status="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$BASE_URL/healthz" || true)"
    if [[ "$status" == "200" ]]; then
        ready=yes
        break
    fi
    sleep 0.5
done
if [[ -z "$ready" ]]; then
    echo "run.sh: GET $BASE_URL/healthz did not answer 200 within 60 s" >&2
    show_server_log
    exit 1
fi
echo "run.sh: server is healthy; running browser tests"

status=0
# shellcheck disable=SC2086  # PYTEST_ARGS is deliberately word-split
PAWPACK_BASE_URL="$BASE_URL" python3 -m pytest -q Tests/browser ${PYTEST_ARGS:-} || status=$?
if (( status != 0 )); then
    show_server_log
    echo "run.sh: browser tests failed (pytest exit $status); screenshots in $ARTIFACTS/screenshots" >&2
fi
exit "$status"
