#!/usr/bin/env bash
# The client SDKs and the CLI (sdk/typescript, sdk/go, cli), each a package of its own:
#   bash scripts/sdk.sh build      install their locked npm dependencies and build them (fast when up to date)
#   bash scripts/sdk.sh generate   regenerate both SDKs' code, and the dashboard's typed documents, from schema.graphql (`npm run sdk:generate`)
#   bash scripts/sdk.sh check      fail when the committed generated code is stale against schema.graphql, or
#                                  when the Go and TypeScript SDKs' operations or close-code tables differ
#   bash scripts/sdk.sh test       unit tests, then the SDKs, the packed npm tarball (with the README's
#                                  TypeScript examples), the Go SDK README's install steps and the CLI
#                                  against a Kairos of their own (scripts/with-kairos.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."
# MONGO_URL and JWT_SECRET for the Kairos that `test` starts (already set when run from scripts/test.sh).
source scripts/dev-env.sh

npm_ready() { # dir: npm ci when node_modules is missing or older than the lockfile
  if [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
built() { # dir: npm run build when dist/ is older than its sources
  if [ ! -f "$1/dist/.built" ] || [ -n "$(find "$1/src" "$1/package-lock.json" "$1/tsconfig.json" -newer "$1/dist/.built" -type f -print -quit)" ]; then
    (cd "$1" && npm run --silent build && touch dist/.built)
  fi
}

fresh() { # generated committed: fail when the committed file differs from the one just generated
  if ! diff -q "$1" "$2" >/dev/null; then
    echo "$2 is stale against schema.graphql and the operations it is generated from: run npm run sdk:generate" >&2
    exit 1
  fi
}

# The Go SDK README's Install steps as a user follows them, in a folder outside the repository:
# its marked blocks (`<!-- go-install: ... -->`) with KAIROS_CLONE set to this repository, then the
# program they build runs against the Kairos in KAIROS_URL / KAIROS_TOKEN and must name its tenant.
go_install_check() {
  local readme=sdk/go/README.md dir setup program steps out
  setup=$(node scripts/readme-block.mjs "$readme" 'go-install: setup')
  program=$(node scripts/readme-block.mjs "$readme" 'go-install: main.go')
  steps=$(node scripts/readme-block.mjs "$readme" 'go-install: run')
  if ! grep -q '^KAIROS_CLONE=' <<<"$setup"; then
    echo "$readme: the go-install setup block has no KAIROS_CLONE= line to point at this repository" >&2
    return 1
  fi
  dir=$(mktemp -d)
  {
    sed "s|^KAIROS_CLONE=.*|KAIROS_CLONE='$PWD'|" <<<"$setup"
    printf "cat > main.go <<'KAIROS_README_EOF'\n%s\nKAIROS_README_EOF\n" "$program"
    # KAIROS_TOKEN is already in the environment: drop the line that sets a placeholder.
    sed '/^export KAIROS_TOKEN=/d' <<<"$steps"
  } >"$dir/install.sh"
  if ! out=$(cd "$dir" && bash -euo pipefail install.sh 2>"$dir/stderr"); then
    echo "$readme: a go-install step failed:" >&2
    cat "$dir/stderr" >&2
    rm -rf "$dir"
    return 1
  fi
  rm -rf "$dir"
  if ! [[ "$out" =~ ^tenant\ [^[:space:]]+\ role\ ADMIN$ ]]; then
    echo "$readme: the go-install program printed '$out', not 'tenant ... role ADMIN'" >&2
    return 1
  fi
  echo "sdk: the Go SDK README's install steps build and run outside the repository ($out)"
}

case "${1:-}" in
  build)
    npm_ready sdk/typescript
    built sdk/typescript
    npm_ready cli
    built cli
    ;;
  generate)
    npm_ready sdk/typescript
    (cd sdk/typescript && npx graphql-codegen --config codegen.ts)
    (cd sdk/go && go tool genqlient genqlient.yaml)
    ;;
  check)
    npm_ready sdk/typescript
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd sdk/typescript && OUT_DIR="$tmp" npx graphql-codegen --config codegen.ts >/dev/null)
    fresh "$tmp/sdk.ts" sdk/typescript/src/generated/graphql.ts
    fresh "$tmp/ui.ts" ui/src/api/generated.ts
    # genqlient writes where its config says: generate in a copy laid out like the repository.
    mkdir -p "$tmp/sdk" && cp schema.graphql "$tmp/" && cp -r sdk/go "$tmp/sdk/go"
    (cd "$tmp/sdk/go" && go tool genqlient genqlient.yaml)
    fresh "$tmp/sdk/go/generated.go" sdk/go/generated.go
    echo "sdk: generated code is up to date with schema.graphql"
    # The two SDKs' hand-kept copies (operations, close codes) must agree.
    node --test --test-reporter=dot sdk/agreement.test.mjs
    echo "sdk: the Go and TypeScript SDKs send the same operations and map close codes alike"
    ;;
  test)
    bash scripts/sdk.sh build
    (cd sdk/typescript && node --test test/unit.test.mjs)
    node scripts/with-kairos.mjs bash scripts/sdk.sh live
    ;;
  live) # run by `test` under with-kairos.mjs
    node --test --test-concurrency=1 sdk/typescript/test/live.test.mjs sdk/typescript/test/pack.test.mjs cli/test/*.test.mjs
    (cd sdk/go && go test -count=1 ./...)
    go_install_check
    ;;
  *)
    echo "usage: bash scripts/sdk.sh build|generate|check|test" >&2
    exit 2
    ;;
esac
