#!/bin/bash
# LISTs of 50,000 1 KiB ConfigMaps each built afresh (the answer cache off: --list-cache-bytes=0), alternately on
# the uWS listener and the secure port (HTTP/2), curl to the last byte, with the server's CPU per LIST from /proc.
# Needs h2load (nghttp2-client) and curl, and a compiled server (dist/) in the directory it runs from:
#   npm run build && N=5 loadtest/list50k/afresh.sh
# For an A/B, run it from a worktree of the other commit too (a `git worktree` with node_modules linked).
# Prints seconds and server CPU per LIST, one line per pair.
set -u
N=${N:-5}
. "$(dirname "$0")/../lib/server.sh"
SERVER_ARGS="--list-cache-bytes=0 ${SERVER_ARGS:-}" start_server
seed_configmaps l50 50000
sleep 3
cpu() { awk '{print $14+$15}' /proc/$PID/stat; }
list() {
  local c0 r c1
  c0=$(cpu)
  r=$(curl -sk $1 -H "authorization: Bearer $TOKEN" -H 'user-agent: list50k-bench' -o /dev/null -w '%{time_total}' "$2/api/v1/namespaces/l50/configmaps")
  c1=$(cpu)
  echo "$r s, CPU $(( (c1 - c0) * 10 )) ms"
}
for _ in $(seq 1 $N); do
  sleep 1; u=$(list "" "https://127.0.0.1:$UP")
  sleep 1; h=$(list --http2 "https://127.0.0.1:$SP")
  echo "uWS $u   HTTP/2 $h"
done
