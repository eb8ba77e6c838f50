# Sourced by the shell benchmarks: starts the compiled server (dist/, run from the repository root) on free-ish
# loopback ports in a fresh data dir, waits until it answers, and sets D (the data dir), SP (secure port),
# UP (uWS port), PID and TOKEN (the generated admin token: first field of the data dir's tokens.csv). The server
# and the data dir go away when the script exits. Extra server flags: SERVER_ARGS.
start_server() {
  D=$(mktemp -d /tmp/orch-bench.XXXX)
  SP=$((20000 + RANDOM % 20000)); UP=$((SP + 1))
  node dist/src/main.js --data-dir=$D --secure-port=$SP --uws-port=$UP --bind-address=127.0.0.1 --log-level=warn ${SERVER_ARGS:-} > /dev/null 2>&1 &
  PID=$!
  trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf $D' EXIT
  for _ in $(seq 1 300); do curl -sk -o /dev/null "https://127.0.0.1:$UP/readyz" 2>/dev/null && break; sleep 0.1; done
  sleep 2
  TOKEN=$(awk -F, 'NR==1{print $1}' $D/tokens.csv)
}

# seed_configmaps NS COUNT: creates namespace NS and COUNT 1 KiB ConfigMaps in it (generateName l-) through h2load,
# 32 connections on the uWS listener, and prints h2load's status-code line.
seed_configmaps() {
  curl -sk -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -X POST "https://127.0.0.1:$SP/api/v1/namespaces" \
    -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'$1'"}}' -o /dev/null
  echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"l-"},"data":{"v":"'$(head -c 1024 /dev/zero | tr '\0' x)'"}}' > $D/body.json
  h2load -c 32 -m 1 -t 1 --h1 -n $2 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d $D/body.json \
    "https://127.0.0.1:$UP/api/v1/namespaces/$1/configmaps" | grep -E '^status codes'
}
