#!/usr/bin/env bash
# Fuzzes the whole contract with schemathesis (every check: no server error, answers as the
# contract says, bad input refused, input the contract allows accepted) against `pawpack
# serve` on SQLite, signed in as a member with a located dog. Bounded: a fixed number of
# examples per operation and a time budget. Usage: .ci/fuzz.sh [path to pawpack]
set -euo pipefail
cd "$(dirname "$0")/.."
pawpack=${1:-.build/debug/pawpack}
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# The per-member limits are raised: the fuzzer is one member asking thousands of times.
PAWPACK_DATA_DIR="$work/data" PAWPACK_BCRYPT_COST=4 PAWPACK_SQLITE_RESIDENT_MB=0 LOG_LEVEL=warning \
PAWPACK_DECK_READS_PER_MINUTE=1000000 PAWPACK_LOCATION_CHANGES_PER_HOUR=1000000 \
PAWPACK_MAIL_REQUESTS_PER_HOUR=1000000 PAWPACK_MAILS_PER_RECIPIENT_PER_HOUR=1000000 \
PAWPACK_LOGIN_FAILURES_PER_ADDRESS=1000000 \
  timeout 1200 "$pawpack" serve --hostname 127.0.0.1 --port "$port" > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.2; done

json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
password="fuzzing the whole contract"
curl -sf -X POST "$base/v1/auth/signup" -H 'Content-Type: application/json' \
  -d "{\"email\": \"fuzz@example.com\", \"password\": \"$password\", \"username\": \"fuzzer\", \"displayName\": \"Fuzz\", \"dateOfBirth\": \"1990-01-01\"}" > /dev/null
token=$(curl -sf "$base/dev/mail" | grep -o 'token=[A-Za-z0-9_.-]*' | head -1 | cut -d= -f2)
curl -sf -X POST "$base/v1/auth/verify-email" -H 'Content-Type: application/json' -d "{\"token\": \"$token\"}" > /dev/null
access=$(curl -sf -X POST "$base/v1/auth/login" -H 'Content-Type: application/json' \
  -d "{\"email\": \"fuzz@example.com\", \"password\": \"$password\"}" | json '["accessToken"]')
auth="Authorization: Bearer $access"
curl -sf -X PUT "$base/v1/me/location" -H "$auth" -H 'Content-Type: application/json' -d '{"latitude": 45.764, "longitude": 4.8357}' > /dev/null
export PAWPACK_FUZZ_PET=$(curl -sf -X POST "$base/v1/pets" -H "$auth" -H 'Content-Type: application/json' \
  -d '{"name": "Rex", "species": "dog", "estimatedAgeMonths": 30}' | json '["card"]["id"]')

# Left out: what would end the run's session or dog (log-out, deleting the account or the dog).
schemathesis --config-file .ci/schemathesis.toml run "$base/openapi.yaml" --url "$base" -H "$auth" \
  --max-examples "${PAWPACK_FUZZ_EXAMPLES:-10}" --max-time "${PAWPACK_FUZZ_SECONDS:-300}" --seed 18 \
  --exclude-operation-id logOut --exclude-operation-id deleteMe --exclude-operation-id deletePet \
  --phases examples,coverage,fuzzing --no-color
