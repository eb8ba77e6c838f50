#!/usr/bin/env bash
# The project's test command (README and .ci/run run exactly this).
# Type-checks, then runs every *.test.ts with Node's built-in runner, and fails
# if no test ran. Files are listed explicitly: Node 20 neither expands globs
# nor finds .ts files itself.
#
# Second leg: the integration tests that need no uWebSockets.js run again on a
# current Node (24, from the npm registry; scripts/install-node-lts.sh) with
# the uWS listener off, because the uWS build we load exists for Node 20 only
# and the secure port must work alone on any supported Node. `.ci/run`
# installs that Node first; elsewhere the leg runs when it is installed and
# says so when it is not (ORCH_TEST_NODE_LTS=required makes that an error).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test src shards -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
npx --no-install tsc --noEmit -p .
mkdir -p .tmp

# run_leg LOG NODE [ENV=VALUE...] -- FILES...: runs one leg with the TAP reporter, returns its status,
# and fails it when it ran no test.
run_leg() {
  local log=$1 node=$2
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  set +e
  # test-child-exit.mjs: with --test-force-exit, a test file's results could be cut off on their way to the
  # runner, which then reported fewer tests than ran (nodejs/node#64833); see that file.
  env "${envs[@]}" "$node" --import tsx --import ./scripts/test-child-exit.mjs --test --test-reporter=tap --test-concurrency=2 --test-force-exit "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  set -e
  local tests
  tests=$(grep -E '^# tests [0-9]+' "$log" | tail -1 | awk '{print $3}')
  if [ -z "${tests:-}" ] || [ "$tests" -eq 0 ]; then
    echo "the test runner ran no test ($log)" >&2
    return 1
  fi
  return "$status"
}

main_status=0
run_leg .tmp/test-output.log node ORCH_TEST_LEG=main -- "${files[@]}" || main_status=$?

lts_files=(
  test/e2e/quick-start.test.ts test/e2e/rest-kubectl.test.ts test/e2e/client-node.test.ts
  test/e2e/informer.test.ts test/e2e/list-watch.test.ts test/e2e/protobuf-list-watch.test.ts
  test/e2e/server-side-apply.test.ts test/e2e/dry-run.test.ts test/e2e/rest-etcd.test.ts
  test/protobuf/kubectl.test.ts test/openapi/kubectl.test.ts test/patch/kubectl.test.ts
  test/server/frontend-threads.test.ts test/frontends/h2-readable-hold.test.ts
)
lts_node=$(ls .tmp/node-lts/node_modules/node-linux-*/bin/node 2>/dev/null | head -1 || true)
lts_status=0
if [ -n "$lts_node" ]; then
  echo "== no-uWS leg on Node $("$lts_node" -p 'process.versions.node') =="
  run_leg .tmp/test-output-node-lts.log "$lts_node" ORCH_TEST_NO_UWS=1 -- "${lts_files[@]}" || lts_status=$?
elif [ "${ORCH_TEST_NODE_LTS:-}" = "required" ]; then
  echo "the no-uWS leg needs Node 24: run scripts/install-node-lts.sh" >&2
  lts_status=1
else
  echo "== no-uWS leg skipped: Node 24 is not installed (scripts/install-node-lts.sh installs it) =="
fi

tests=$(grep -E '^# tests [0-9]+' .tmp/test-output.log | tail -1 | awk '{print $3}')
pass=$(grep -E '^# pass [0-9]+' .tmp/test-output.log | tail -1 | awk '{print $3}')
fail=$(grep -E '^# fail [0-9]+' .tmp/test-output.log | tail -1 | awk '{print $3}')
if [ -n "$lts_node" ]; then
  pass=$((pass + $(grep -E '^# pass [0-9]+' .tmp/test-output-node-lts.log | tail -1 | awk '{print $3}')))
  fail=$((fail + $(grep -E '^# fail [0-9]+' .tmp/test-output-node-lts.log | tail -1 | awk '{print $3}')))
fi
echo "${pass:-0} passed, ${fail:-0} failed"
# CI keeps only the tail of this output: name every failure (and its first lines of YAML) again here, last.
for log in .tmp/test-output.log .tmp/test-output-node-lts.log; do
  [ -f "$log" ] || continue
  awk -v src="$log" '
    /^ *not ok / { if (!shown++) print "== failures in " src " =="; grab = 1; n = 0; print; next }
    grab && /^ *\.\.\.$/ { grab = 0; next }
    grab && n++ < 24 { print }
  ' "$log"
done
[ "$main_status" -eq 0 ] && [ "$lts_status" -eq 0 ]
