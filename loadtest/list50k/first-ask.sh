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
curl -sk -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -X POST "https://127.0.0.1:$SP/api/v1/namespaces" \
  -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"l50"}}' -o /dev/null
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"l-"},"data":{"v":"'$(head -c 1024 /dev/zero | tr '\0' x)'"}}' > $D/body.json
h2load -c 32 -m 1 -t 1 --h1 -n 50000 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d $D/body.json \
  "https://127.0.0.1:$UP/api/v1/namespaces/l50/configmaps" | grep -E '^status codes'
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
