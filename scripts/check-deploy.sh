#!/usr/bin/env bash
# Validates the deployment files without a cluster or a container daemon: builds helm from its Go
# module into .cache/bin (first time only), lints the chart and renders it with the default and the
# production values, then decodes every rendered object strictly into its Kubernetes API type
# (deploy/validate, a Go test), so a misspelt or misplaced field fails here. Run by test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
HELM_VERSION=v4.3.2
CHART=deploy/helm/kairos
go=$(command -v go || echo /usr/local/go/bin/go)
[ -x "$go" ] || { echo "check-deploy: no Go toolchain to build helm" >&2; exit 1; }
helm=$PWD/.cache/bin/helm
# The module version go install recorded in the binary (helm's own `version` says only v4.3).
if [ "$("$go" version -m "$helm" 2>/dev/null | awk '$1 == "mod" { print $3 }')" != "$HELM_VERSION" ]; then
  echo "check-deploy: building helm $HELM_VERSION from its Go module (first time only, a few minutes)" >&2
  GOBIN=$PWD/.cache/bin "$go" install "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for values in default production; do
  args=()
  [ "$values" = production ] && args=(-f "$CHART/values-production.yaml")
  "$helm" lint --strict "$CHART" "${args[@]}"
  "$helm" template kairos "$CHART" --namespace kairos "${args[@]}" > "$out/$values.yaml"
done
(cd deploy/validate && KAIROS_RENDERED_DIR="$out" "$go" test -count=1 ./...)
