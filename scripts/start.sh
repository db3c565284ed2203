#!/usr/bin/env bash
# `npm start`: installs, starts the services, builds, and runs every role in one process; once the
# server answers, prints the GraphQL URL and a development token for the tenant "demo".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
bash scripts/services.sh
source scripts/dev-env.sh
PORT=${PORT:-4000}
# Where the server is reached (HOST: loopback by default in development mode, src/config.ts).
case "${HOST:-}" in
  '' | 0.0.0.0 | ::) at=127.0.0.1 ;;
  *:*) at="[$HOST]" ;;
  *) at=$HOST ;;
esac

node dist/main.js &
pid=$!
# Not exec'd (this script prints once the server answers), so signals are passed on to it.
trap 'kill -INT "$pid" 2>/dev/null || true' INT
trap 'kill -TERM "$pid" 2>/dev/null || true' TERM
answers() { node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(1000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"; }
until answers "http://$at:$PORT/healthz"; do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
if kill -0 "$pid" 2>/dev/null; then
  echo
  echo "Kairos GraphQL: http://$at:$PORT/graphql   (WebSocket subscriptions on the same URL)"
  echo "Development token for tenant \"demo\" (admin, 24 h):"
  echo "  $(node dist/cli/token.js --tenant demo --role admin)"
  echo 'More: TOKEN=$(npm run -s token -- --tenant T --role admin|member|viewer [--hours H] [--subject S])'
  echo
fi
# A trapped signal ends `wait` early: wait again until node has exited, then exit with its code
# (bash keeps the status of a child it has already reaped).
while kill -0 "$pid" 2>/dev/null; do wait "$pid" || true; done
status=0
wait "$pid" || status=$?
exit "$status"
