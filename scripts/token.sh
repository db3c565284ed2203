#!/usr/bin/env bash
# `npm run -s token -- --tenant T --role admin [--hours H] [--subject S]`: prints a development JWT
# signed with the local secret, and nothing else on stdout (-s keeps npm's banner out of it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2
source scripts/dev-env.sh
exec node dist/cli/token.js "$@"
