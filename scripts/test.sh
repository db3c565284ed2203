#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh machine: install, services, type check, build, jest against
# the real Redis and MongoDB-wire server, then the short chaos run (skipped when jest gets arguments,
# e.g. `npm test -- tests/unit`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
source scripts/dev-env.sh
# ts-jest only transpiles; this is where a type error fails the run.
npx tsc --noEmit -p tsconfig.json
NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}" npx jest --ci "$@"
# The dashboard in headless Chromium (installs Debian's chromium when missing; about 30 s).
if [ $# -eq 0 ]; then bash scripts/test-ui.sh; fi
if [ $# -eq 0 ]; then bash scripts/chaos.sh --short; fi
