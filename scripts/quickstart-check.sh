#!/usr/bin/env bash
# Runs the README's quickstart (the ```sh block after the `quickstart:` marker) against a Kairos
# started here, as a user would paste it, so the README cannot drift from what works. Fails when a
# command fails, an answer holds GraphQL errors, or an expected result is missing. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/dev-env.sh
NAME=kairos_quickstart_$$
PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
MONGO_URL_QS=$(node -e 'console.log(process.argv[1].replace(/\/[^/?]*(\?|$)/, `/${process.argv[2]}$1`))' "$MONGO_URL" "$NAME")
WORK=$(mktemp -d)
cleanup() {
  [ -n "${KPID:-}" ] && kill "$KPID" 2>/dev/null && wait "$KPID" 2>/dev/null || true
  node --input-type=module -e '
    import { MongoClient } from "mongodb"; import { Redis } from "ioredis";
    const [url, redisUrl, name] = process.argv.slice(1);
    const mongo = await new MongoClient(url).connect(); await mongo.db(name).dropDatabase(); await mongo.close();
    const redis = new Redis(redisUrl); let cursor = "0";
    do { const [next, keys] = await redis.scan(cursor, "MATCH", `${name}*`, "COUNT", 1000); cursor = next; if (keys.length) await redis.del(...keys); } while (cursor !== "0");
    await redis.quit();' "$MONGO_URL" "${REDIS_URL:-redis://127.0.0.1:6379}" "$NAME" || true
  rm -rf "$WORK" .data/watch.mjs .data/page1.json .data/tick.json
}
trap cleanup EXIT

MONGO_URL=$MONGO_URL_QS REDIS_PREFIX=$NAME PORT=$PORT ALLOW_PRIVATE_TARGETS=true node dist/main.js >"$WORK/kairos.log" 2>&1 &
KPID=$!
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.25; done
curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null || { echo "quickstart: Kairos did not become ready" >&2; cat "$WORK/kairos.log" >&2; exit 1; }

node -e '
  const readme = require("fs").readFileSync("README.md", "utf8");
  const m = /<!-- quickstart:[^>]*-->\s*```sh\n([\s\S]*?)\n```/.exec(readme);
  if (!m) { console.error("README.md has no marked quickstart block"); process.exit(1); }
  process.stdout.write(m[1] + "\n");' >"$WORK/quickstart.sh"

if ! KAIROS="http://127.0.0.1:$PORT/graphql" timeout 120 bash -euo pipefail "$WORK/quickstart.sh" >"$WORK/out.txt" 2>&1; then
  echo "quickstart: a command failed" >&2; cat "$WORK/out.txt" >&2; exit 1
fi
fail() { echo "quickstart: $1" >&2; cat "$WORK/out.txt" >&2; exit 1; }
grep -q '"errors"' "$WORK/out.txt" && fail "an answer holds GraphQL errors"
grep -q '"createJob":{"job":{"id":' "$WORK/out.txt" || fail "createJob answered no job"
grep -q '"name":"tick"' "$WORK/out.txt" || fail "jobs did not list the job"
# The watcher prints exactly as many status changes as the README's comment says it does.
WATCHED=$(grep -o 'prints the first [0-9]* status changes' "$WORK/quickstart.sh" | grep -o '[0-9]\+' || true)
[ -n "$WATCHED" ] || fail "the quickstart no longer says how many status changes the watch script prints"
[ "$(grep -c '^{"status":' "$WORK/out.txt")" -eq "$WATCHED" ] || fail "the watch script did not print exactly $WATCHED status changes"
grep -q '"hasNextPage"' "$WORK/out.txt" || fail "executions did not page"
grep -q '"local":"2027-03-28T03:00:00.000+02:00"' "$WORK/out.txt" || fail "previewSchedule did not cross the DST change"
grep -q '^received .* {"hello":"world"}' "$WORK/out.txt" || fail "the local receiver got no delivery"
[ "$(grep -c '"deleteJob":{"deletedJobId":' "$WORK/out.txt")" -eq 2 ] || fail "the clean-up did not delete both jobs"
# The last jobs listing, after the clean-up: the tenant has no job left to fire.
[ "$(grep '^{"data":{"jobs":' "$WORK/out.txt" | tail -n 1)" = '{"data":{"jobs":{"edges":[]}}}' ] || fail "the last jobs listing is not empty"
# Asked again here rather than trusting the README's own listing: the quickstart's tenant has no job left.
LEFT=$(curl -s "http://127.0.0.1:$PORT/graphql" -H "authorization: Bearer $(npm run -s token)" -H 'content-type: application/json' \
  -d '{"query":"{ jobs(first: 10) { edges { node { name status } } } }"}')
[ "$LEFT" = '{"data":{"jobs":{"edges":[]}}}' ] || fail "jobs are left after the clean-up: $LEFT"
echo "quickstart: every README quickstart command worked"
