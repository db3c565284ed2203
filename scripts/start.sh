#!/usr/bin/env bash
# `npm start`: installs, starts the services, builds, and runs every role in one process, printing
# the GraphQL URL and a development token for the tenant "demo".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
source scripts/dev-env.sh
PORT=${PORT:-4000}
echo
echo "Kairos GraphQL: http://127.0.0.1:$PORT/graphql   (WebSocket subscriptions on the same URL)"
echo "Development token for tenant \"demo\" (admin, 24 h):"
echo "  $(node dist/cli/token.js --tenant demo --role admin)"
echo 'More: TOKEN=$(npm run -s token -- --tenant T --role admin|member|viewer [--hours H] [--subject S])'
echo
exec node dist/main.js
