#!/usr/bin/env bash
# Builds FerretDB 1.24.2 from its Go module (tools/ferretdb) into .cache/ferretdb/ferretdb when
# missing or stale; fast when up to date. Run by services.sh only when it is about to start FerretDB,
# and by test.sh and chaos.sh, whose outage tests and chaos run start FerretDB servers of their own
# (they use mongod instead when it is on PATH, so nothing is built then).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v mongod >/dev/null && exit 0
FERRET=.cache/ferretdb/ferretdb
stamp=.cache/ferretdb/source.sha
sha=$(cat tools/ferretdb/go.mod tools/ferretdb/go.sum tools/ferretdb/main.go | sha256sum | cut -c1-16)
[ -x "$FERRET" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sha" ] && exit 0
go=$(command -v go || echo /usr/local/go/bin/go)
[ -x "$go" ] || { echo "mongo: no mongod and no Go toolchain to build FerretDB" >&2; exit 1; }
echo "mongo: building FerretDB 1.24.2 from its Go module (first time only, about a minute)" >&2
mkdir -p .cache/ferretdb
root=$PWD
(cd tools/ferretdb && "$go" build -o "$root/$FERRET" .)
echo "$sha" > "$stamp"
