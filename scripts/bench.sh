#!/usr/bin/env bash
# `npm run bench:NAME`: installs, starts the services and runs dist/tools/bench/NAME.js (built from
# tools/bench/NAME.ts), which prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
source scripts/dev-env.sh
exec node "dist/tools/bench/$1.js" "${@:2}"
