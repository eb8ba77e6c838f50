#!/bin/bash
# How long a restart of the embedded store takes with N objects: creates N 1 KiB ConfigMaps through h2load (uWS
# listener, 32 connections), stops the server (SIGTERM), starts it on the same data dir and reports the seconds
# to its "is serving" log line, with the sizes of the snapshot and WAL it recovered from. Run from a directory
# holding a compiled server (`npm run build` in the repository root):
#   N=250000 loadtest/storage/restart-time.sh
# Needs h2load (Debian nghttp2-client) and curl.
set -u
N=${N:-250000}
for cmd in h2load curl; do
  command -v $cmd > /dev/null || { echo "restart-time skipped: $cmd is not installed"; exit 0; }
done
D=$(mktemp -d /tmp/orch-restart.XXXX)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
SP=$((20000 + RANDOM % 20000)); UP=$((SP + 1))
start() { node dist/src/main.js --data-dir=$D --secure-port=$SP --uws-port=$UP --bind-address=127.0.0.1 --log-level=info > $D/out-$1.log 2>&1 & PID=$!; }
serving() { for _ in $(seq 1 6000); do grep -q 'is serving"' $D/out-$1.log && return 0; sleep 0.05; done; return 1; }
start 1; serving 1 || { echo "the server did not start"; exit 1; }
TOKEN=$(awk -F, 'NR==1{print $1}' $D/tokens.csv)
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"h-"},"data":{"v":"'$(head -c 1024 /dev/zero | tr '\0' x)'"}}' > $D/body.json
h2load -c 32 -m 1 -t 1 --h1 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d $D/body.json -n $N \
  https://127.0.0.1:$UP/api/v1/namespaces/default/configmaps 2>&1 | grep -E '^requests:'
sleep 5
kill $PID; wait $PID 2>/dev/null; PID=
find $D -name 'snap-*' -o -name 'wal-*' | xargs ls -l | awk '{printf "  %s: %d MB\n", $9, $5 / 1000000}'
T0=$(date +%s.%N); start 2
serving 2 || { echo "the server did not start again"; exit 1; }
echo "serving again after $(echo "$(date +%s.%N) - $T0" | bc) s"
kill $PID; wait $PID 2>/dev/null; PID=
