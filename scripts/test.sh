#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh machine: install, services, type check, build, then jest
# against the real Redis and MongoDB-wire server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
source scripts/dev-env.sh
# ts-jest only transpiles; this is where a type error fails the run.
npx tsc --noEmit -p tsconfig.json
NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}" npx jest --ci "$@"
