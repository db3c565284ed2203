#!/usr/bin/env bash
# Installs the locked npm dependencies when they are missing or older than the lockfile, and builds
# dist/ (the dashboard in dist/ui included) when stale.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ ! -f dist/.built ] || [ -n "$(find src tools ui/src ui/build.mjs sdk/typescript/src ui/package-lock.json schema.graphql package.json package-lock.json tsconfig.json tsconfig.build.json tsconfig.tools.json -newer dist/.built -type f -print -quit)" ]; then
  npm run --silent build
  touch dist/.built
fi
