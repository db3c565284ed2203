#!/usr/bin/env bash
# `npm run token -- --tenant T --role admin`: mints a development JWT with the local secret.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2
source scripts/dev-env.sh
exec node dist/cli/token.js "$@"
