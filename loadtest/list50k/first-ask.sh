#!/bin/bash
# A LIST of 50,000 1 KiB ConfigMaps built afresh (no answer kept: each first LIST comes 11 s after any other)
# against one read again right after (kept, list-result-cache.ts), on the uWS listener and the secure port
# (HTTP/2 and HTTP/1.1); curl to the last byte. Needs h2load (nghttp2-client) and curl, and a compiled server:
#   npm run build && ROUNDS=3 loadtest/list50k/first-ask.sh
# Prints seconds, bytes and HTTP version per LIST.
set -u
ROUNDS=${ROUNDS:-3}
. "$(dirname "$0")/../lib/server.sh"
start_server
seed_configmaps l50 50000
sleep 3
list() { curl -sk $1 -H "authorization: Bearer $TOKEN" -H 'user-agent: list50k-bench' -o /dev/null -w '%{time_total} %{size_download} %{http_version}\n' "$2/api/v1/namespaces/l50/configmaps"; }
for r in $(seq 1 $ROUNDS); do
  echo "round $r"
  sleep 11; echo -n "uWS, built afresh         "; list "" "https://127.0.0.1:$UP"
  sleep 11; echo -n "HTTP/2, built afresh      "; list --http2 "https://127.0.0.1:$SP"
  sleep 11; echo -n "HTTP/1.1, built afresh    "; list --http1.1 "https://127.0.0.1:$SP"
  echo -n "HTTP/1.1, asked again     "; list --http1.1 "https://127.0.0.1:$SP"
  echo -n "uWS, kept                 "; list "" "https://127.0.0.1:$UP"
  echo -n "HTTP/2, kept              "; list --http2 "https://127.0.0.1:$SP"
done
