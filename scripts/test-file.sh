#!/usr/bin/env bash
# `npm run test:file -- tests/unit/x.test.ts [more files] [jest options]`: the fast path for running
# a few test files while working on them. Unlike `npm test` it does not install, build, type-check or
# generate anything; it starts Redis, the MongoDB-wire server and the test Redis Cluster only when they
# do not answer (none for unit tests only), then runs jest on the given files.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  echo "usage: npm run test:file -- tests/unit/x.test.ts [more test files] [jest options]" >&2
  exit 2
fi
[ -d node_modules ] || { echo "node_modules is missing: run bash scripts/install.sh once" >&2; exit 1; }

files=() unit_only=true
for arg in "$@"; do
  case "$arg" in
    -*) ;;
    *) files+=("$arg"); [[ "$arg" == tests/unit/* ]] || unit_only=false ;;
  esac
done

config=jest.config.js
if $unit_only && [ ${#files[@]} -gt 0 ]; then
  config=jest.unit.config.js   # no global service check
else
  # Fast (a few pings) when all answer; with the Redis Cluster the Redis Cluster tests run against.
  KAIROS_REDIS_CLUSTER=1 bash scripts/services.sh
fi
source scripts/dev-env.sh

# Tests that start `node dist/main.js` or use the built SDK run the last build, not src/.
if [ ${#files[@]} -gt 0 ] && grep -lqE "support/processes|dist/" "${files[@]}" 2>/dev/null \
  && [ -n "$(find src -newer dist/main.js -type f -print -quit 2>/dev/null || echo stale)" ]; then
  echo "note: dist/ is older than src/ and these tests run dist/: run npm run build first" >&2
fi
NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}" exec npx jest --config "$config" "$@"
