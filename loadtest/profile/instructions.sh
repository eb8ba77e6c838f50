#!/bin/bash
# Instructions per request, counted by valgrind's callgrind: unlike CPU time, the count hardly moves with what
# else the machine does (two runs of the same build agree within ~2% once no major collection falls in the window),
# so a change of a few percent on the hot path shows in one run where timed runs need many interleaved pairs.
#
#   loadtest/profile/instructions.sh [OPS] [N]     OPS: get,create,h2get (default get,create), N requests each (2000)
#
# Run from the repository root after `npm run build`; needs valgrind, h2load and python3. The built server runs
# under callgrind with instrumentation off until the load starts (start-up at near native speed), on the embedded
# store in a temporary directory under /dev/shm; 50 ConfigMaps of 1 KiB are seeded; each operation gets a warm-up
# of 2N requests (8 connections, TLS, bearer token; uWS HTTP/1.1, or the secure port over HTTP/2 for h2get), then N
# measured ones (h2get's count depends on what earlier operations had TurboFan optimize: under valgrind few compiles
# finish, so compare it only between runs of the same OPS list). Prints the user-space instructions per request (the kernel's share, about a quarter of a GET's
# time, is not counted): all of them, those outside V8's collector and compiler (the figure to compare builds by),
# and the costliest functions, JIT code named through V8's perf map (--perf-basic-prof).
set -euo pipefail
OPS=${1:-get,create}
N=${2:-2000}
for tool in valgrind callgrind_control callgrind_annotate h2load python3; do
  command -v $tool > /dev/null || { echo "instructions.sh needs $tool (Debian: valgrind, nghttp2-client, python3)" >&2; exit 2; }
done
[ -f dist/src/main.js ] || { echo "run npm run build first" >&2; exit 2; }
D=$(mktemp -d /dev/shm/orch-instr.XXXX)
OUT=$(mktemp -d /tmp/orch-instr-out.XXXX)
SP=$((20000 + RANDOM % 20000)); UP=$((SP + 1))
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=$OUT/cg.%p \
  node --perf-basic-prof dist/src/main.js --data-dir=$D --secure-port=$SP --uws-port=$UP --bind-address=127.0.0.1 \
  --log-level=warn > $OUT/server.log 2>&1 &
PID=$!
cleanup() { kill $PID 2> /dev/null || true; wait $PID 2> /dev/null || true; rm -rf $D /tmp/perf-$PID.map; }
trap cleanup EXIT
for i in $(seq 1 300); do curl -sk -o /dev/null https://127.0.0.1:$UP/readyz 2> /dev/null && break; sleep 1; done
TOKEN=$(awk -F, 'NR==1{print $1}' $D/tokens.csv)
BASE=/api/v1/namespaces/default/configmaps
DATA=$(head -c 1024 /dev/zero | tr '\0' x)
for i in $(seq 1 50); do
  curl -sk -o /dev/null -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"g$i\"},\"data\":{\"v\":\"$DATA\"}}" https://127.0.0.1:$UP$BASE
done
echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"h-\"},\"data\":{\"v\":\"$DATA\"}}" > $OUT/body.json
for i in $(seq 1 50); do echo "https://127.0.0.1:$UP$BASE/g$i"; done > $OUT/uris-h1
for i in $(seq 1 50); do echo "https://127.0.0.1:$SP$BASE/g$i"; done > $OUT/uris-h2
callgrind_control -i on $PID > /dev/null 2>&1
echo "$(nproc) cores, $(node --version), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2> /dev/null || echo none); N=$N"
for op in ${OPS//,/ }; do
  case $op in
    get) args=(--h1 -i $OUT/uris-h1) ;;
    h2get) args=(-i $OUT/uris-h2) ;;
    create) args=(--h1 -d $OUT/body.json https://127.0.0.1:$UP$BASE) ;;
    *) echo "unknown operation $op" >&2; exit 2 ;;
  esac
  load() { h2load -c 8 -m 1 -t 1 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -n $1 "${args[@]}" 2>&1 | awk '/^status codes:/{print $3}'; }
  load $((N * 2)) > /dev/null
  callgrind_control -z $PID > /dev/null 2>&1
  ok=$(load $N)
  callgrind_control -d $op $PID > /dev/null 2>&1
  sleep 2
  F=$(ls -t $OUT/cg.$PID.* | head -1)
  echo "== $op: $ok of $N succeeded"
  python3 - "$F" "/tmp/perf-$PID.map" "$N" << 'EOF'
import bisect, collections, re, subprocess, sys
f, perf_map, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
entries = []
for line in open(perf_map):
    addr, size, name = line.rstrip('\n').split(' ', 2)
    entries.append((int(addr, 16), int(size, 16), name))
entries.sort()
starts = [e[0] for e in entries]
def jit_name(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and entries[i][0] <= addr < entries[i][0] + entries[i][1]:
        return 'JIT ' + re.sub(r'file://\S*/dist/', '', entries[i][2])
    return None
out = subprocess.run(['callgrind_annotate', '--inclusive=no', '--threshold=100', f], capture_output=True, text=True).stdout
collector = re.compile(r'compiler::|Compil|baseline::|RelocIterator|Zone::|Mark|Scaveng|Sweep|Evacuat|RememberedSet|SlotSet|'
                       r'IteratePointers|MemoryChunk|Heap::|GCTracer|Compactor|MinorGC|RecordMigrated|Worklist|'
                       r'PretenuringHandler|ArrayBufferSweeper|ActiveSystemPages|popcount|IterateObjectCache|SizeFromMap|RootVisitor|'
                       r'VisitRootPointer|GlobalHandles|PostGarbageCollection')
total = other = 0
by_fn = collections.Counter()
for line in out.splitlines():
    m = re.match(r'\s*([0-9,]+) \(\s*[0-9.]+%\)\s+(.*)', line)
    if not m:
        continue
    count, name = int(m.group(1).replace(',', '')), m.group(2)
    if 'PROGRAM TOTALS' in name:
        total = count
        continue
    if collector.search(name):
        continue
    other += count
    a = re.match(r'\?\?\?:0x([0-9a-f]+) \[\?\?\?\]', name)
    by_fn[(jit_name(int(a.group(1), 16)) if a else None) or re.sub(r'v8::internal::|\[.*\]', '', name).strip()] += count
print(f'instructions per request: {total // n:,} in all, {other // n:,} outside the collector and compiler')
for name, count in by_fn.most_common(25):
    print(f'{count / n:10,.0f}  {name[:140]}')
EOF
done
