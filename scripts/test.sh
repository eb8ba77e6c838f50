#!/usr/bin/env bash
# The project's test command (README and .ci/run run exactly this).
# Type-checks, then runs every *.test.ts with Node's built-in runner. Files are
# listed explicitly: Node 20 neither expands globs nor finds .ts files itself.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find test src shards -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
npx --no-install tsc --noEmit -p .
mkdir -p .tmp
set +e
node --import tsx --test --test-concurrency=2 "${files[@]}" 2>&1 | tee .tmp/test-output.log
status=${PIPESTATUS[0]}
set -e
tests=$(grep -E '^# tests [0-9]+' .tmp/test-output.log | tail -1 | awk '{print $3}')
if [ -z "${tests:-}" ] || [ "$tests" -eq 0 ]; then
  echo "the test runner ran no test" >&2
  exit 1
fi
exit "$status"
