#!/usr/bin/env bash
# Builds the dashboard (ui/, its own package and lockfile) into dist/ui, installing its locked
# dependencies first when they are missing or older than its lockfile. Part of `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/../ui"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent build
