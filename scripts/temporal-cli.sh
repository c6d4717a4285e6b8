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
mkdir -p "$bin"

# A machine-wide copy outlives fresh clones (CI clones anew each run), so a warm machine
# only copies the binary instead of building it again.
shared="${XDG_CACHE_HOME:-$HOME/.cache}/svc-tools/temporal-$VERSION"
if [ -x "$shared" ]; then
  cp "$shared" "$bin/temporal"
else
  if ! command -v go >/dev/null 2>&1; then
    echo "temporal-cli: Go is not installed. Install Go >= 1.22 (https://go.dev/dl) or put a 'temporal' binary on PATH and set TEMPORAL_CLI." >&2
    exit 1
  fi
  echo "temporal-cli: building github.com/temporalio/cli/cmd/temporal@$VERSION into $bin (one-time, a few minutes)" >&2
  # Go's own module and build caches (under $HOME) stay warm across clones too.
  CGO_ENABLED=0 GOBIN="$bin" go install "github.com/temporalio/cli/cmd/temporal@$VERSION"
  mkdir -p "$(dirname "$shared")"
  cp "$bin/temporal" "$shared.tmp.$$" && mv "$shared.tmp.$$" "$shared"
fi
rm -f "$bin"/.temporal-*
touch "$stamp"
"$bin/temporal" --version >&2
