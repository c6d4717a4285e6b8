#!/usr/bin/env bash
# Builds the Temporal CLI (dev server + Web UI) from its Go module into .tools/bin.
# The SDK's own server download needs the open internet, which our machines do not have;
# the Go module proxy is reachable, so we build the CLI from source instead.
# v1.6.0+ carry `replace` directives that `go install pkg@version` refuses; v1.5.1 does not.
set -euo pipefail
VERSION="${TEMPORAL_CLI_VERSION:-v1.5.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/bin"
stamp="$bin/.temporal-$VERSION"
if [ -x "$bin/temporal" ] && [ -f "$stamp" ]; then
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "temporal-cli: Go is not installed. Install Go >= 1.22 (https://go.dev/dl) or put a 'temporal' binary on PATH and set TEMPORAL_CLI." >&2
  exit 1
fi
mkdir -p "$bin"
echo "temporal-cli: building github.com/temporalio/cli/cmd/temporal@$VERSION into $bin (one-time, a few minutes)" >&2
# Keep the module and build caches under .tools too so CI's warm runs are fast and nothing leaks to $HOME.
export GOMODCACHE="${GOMODCACHE:-$root/.tools/gomod}"
export GOCACHE="${GOCACHE:-$root/.tools/gocache}"
CGO_ENABLED=0 GOBIN="$bin" go install "github.com/temporalio/cli/cmd/temporal@$VERSION"
rm -f "$bin"/.temporal-*
touch "$stamp"
"$bin/temporal" --version >&2
