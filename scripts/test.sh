#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh machine: install, services, type check, build, jest against
# the real Redis and MongoDB-wire server, then the short chaos run (skipped when jest gets arguments,
# e.g. `npm test -- tests/unit`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# With the Redis Cluster the Redis Cluster tests run against.
KAIROS_REDIS_CLUSTER=1 bash scripts/services.sh
source scripts/dev-env.sh
# The outage tests start FerretDB servers of their own (mongod instead when on PATH): build its binary.
bash scripts/ferretdb-build.sh
# Client SDKs and CLI: their generated code must match schema.graphql, and they are built before jest
# because the e2e tests use the TypeScript SDK as their client.
bash scripts/sdk.sh check
bash scripts/sdk.sh build
# ts-jest only transpiles; this is where a type error fails the run.
npx tsc --noEmit -p tsconfig.json
# ESLint (type-aware: floating promises, unused code) and Prettier's check: eslint.config.js, .prettierrc.json.
npm run --silent lint
NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}" npx jest --ci "$@"
# The README quickstart, run command by command against a Kairos started for it (keeps the README true; ~20 s).
if [ $# -eq 0 ]; then bash scripts/quickstart-check.sh; fi
# The SDKs (TypeScript, Go, the packed npm tarball) and the CLI against a Kairos of their own.
if [ $# -eq 0 ]; then bash scripts/sdk.sh test; fi
# The dashboard in headless Chromium (installs Debian's chromium when missing; about 30 s).
if [ $# -eq 0 ]; then bash scripts/test-ui.sh; fi
# The Helm chart: lint, render with default and production values, decode every object strictly (builds helm once into .cache/).
if [ $# -eq 0 ]; then bash scripts/check-deploy.sh; fi
if [ $# -eq 0 ]; then bash scripts/chaos.sh --short; fi
