#!/usr/bin/env bash
# `npm run test:ui`: the dashboard's browser tests (ui/tests) in Debian's headless Chromium, against
# a Kairos process of their own. Installs chromium when missing; expects the services to be running
# (scripts/services.sh) and dist/ built (scripts/install.sh), as scripts/test.sh arranges.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests..."
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null
fi
export CHROMIUM_PATH=${CHROMIUM_PATH:-$(command -v chromium)}
# From the repository root: the test starts `node dist/main.js`.
node --test --test-concurrency=1 ui/tests/
