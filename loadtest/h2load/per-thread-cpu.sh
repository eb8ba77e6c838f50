#!/bin/bash
# CPU of each thread of the server (from /proc/<pid>/task) during one 8 s h2load run of 1 KiB ConfigMap creates
# on the uWS listener, 32 connections. Run from a directory holding a compiled server (dist/, proto, package.json,
# node_modules), e.g. after `npm run build` in the repository root:
#   loadtest/h2load/per-thread-cpu.sh THREADS        (--frontend-threads=THREADS --uws-threads=THREADS)
# Prints the requests done and the busiest threads' CPU ticks (100 = 1 s); the serving threads are the busiest.
T=${1:-2}
D=$(mktemp -d /tmp/orch-per-thread.XXXX)
SP=$((20000 + RANDOM % 20000)); UP=$((SP + 1))
node dist/src/main.js --data-dir=$D --secure-port=$SP --uws-port=$UP --bind-address=127.0.0.1 --log-level=warn --frontend-threads=$T --uws-threads=$T > /dev/null 2>&1 &
PID=$!
for i in $(seq 1 300); do
  if curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$UP/readyz 2>/dev/null | grep -q '^[1-5]'; then break; fi
  sleep 0.1
done
sleep 4
# The generated admin token: first field of the data dir's tokens.csv.
TOKEN=$(awk -F, 'NR==1{print $1}' $D/tokens.csv)
echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"h-"},"data":{"v":"'$(head -c 1024 /dev/zero | tr '\0' x)'"}}' > $D/body.json
snap() { for t in /proc/$PID/task/*; do echo "$(basename $t)-$(cat $t/comm | tr ' ' _) $(awk '{print $14+$15}' $t/stat)"; done | sort; }
h2load -c 32 -m 1 -t 1 --h1 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d $D/body.json -D 2 https://127.0.0.1:$UP/api/v1/namespaces/default/configmaps > /dev/null 2>&1
snap > $D/a
OUT=$(h2load -c 32 -m 1 -t 1 --h1 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d $D/body.json -D 8 https://127.0.0.1:$UP/api/v1/namespaces/default/configmaps 2>&1 | grep -E "^requests:|status codes")
snap > $D/b
echo "threads=$T: $OUT"
join <(awk '{c[$1]+=$2} END{for(k in c) print k, c[k]}' $D/a | sort) <(awk '{c[$1]+=$2} END{for(k in c) print k, c[k]}' $D/b | sort) | awk '{d=$3-$2; if (d>0) printf "  %-28s %5d ticks\n", $1, d}' | sort -k2 -nr | head -14
kill $PID; wait $PID 2>/dev/null; rm -rf $D
