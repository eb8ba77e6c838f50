#!/bin/bash
# GETs of 100 1 KiB ConfigMaps asking for Protobuf (as client-go's controllers ask for built-in types), on the
# uWS listener, 32 connections, 3 runs of 5 s: requests/s and server CPU per GET from /proc. Needs h2load
# (nghttp2-client) and curl, and a compiled server:
#   npm run build && loadtest/h2load/protobuf-gets.sh
set -u
. "$(dirname "$0")/../lib/server.sh"
start_server
# The media type is the naming table's.
PB=${PROTOBUF_MEDIA_TYPE:-application/vnd.orch.protobuf}
VALUE=$(head -c 1024 /dev/zero | tr '\0' x)
for i in $(seq 0 99); do
  echo "https://127.0.0.1:$UP/api/v1/namespaces/default/configmaps/pb-$i"
  curl -sk -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -X POST "https://127.0.0.1:$UP/api/v1/namespaces/default/configmaps" \
    -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pb-'$i'"},"data":{"v":"'$VALUE'"}}' -o /dev/null
done > $D/uris.txt
for r in 1 2 3; do
  C0=$(awk '{print $14+$15}' /proc/$PID/stat)
  OUT=$(h2load -c 32 -m 1 -t 1 --h1 -H "authorization: Bearer $TOKEN" -H "accept: $PB" -i $D/uris.txt -D 5 2>&1 | grep -E '^finished|^requests:')
  C1=$(awk '{print $14+$15}' /proc/$PID/stat)
  N=$(echo "$OUT" | awk '/^requests:/{print $8}')
  echo "$(echo "$OUT" | head -1 | cut -c1-45); server CPU $(( (C1-C0)*10000 / N )) µs per GET"
done
