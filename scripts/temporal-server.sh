#!/usr/bin/env bash
# Builds the production Temporal pieces from their Go modules, like scripts/temporal-cli.sh:
#   .tools/bin/temporal-server    go.temporal.io/server/cmd/server (the version the pinned CLI embeds)
#   .tools/bin/temporal-sql-tool  go.temporal.io/server/cmd/tools/sql (schema setup/upgrade)
#   .tools/ui/server              github.com/temporalio/ui-server/v2 (its binary is also `server`)
# A machine-wide copy under ~/.cache/svc-tools outlives fresh clones, so a warm machine only copies.
# The SQL schema files are embedded in temporal-sql-tool (--schema-name postgresql/v12/...).
# ui-server >= v2.56 needs Go >= 1.26.9; v2.55.0 builds with the Go this machine has.
set -euo pipefail
SERVER_VERSION="${TEMPORAL_SERVER_VERSION:-v1.29.1}"
UI_VERSION="${TEMPORAL_UI_VERSION:-v2.55.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"
stamp="$tools/.server-$SERVER_VERSION-ui-$UI_VERSION"
if [ -f "$stamp" ] && [ -x "$tools/bin/temporal-server" ] && [ -x "$tools/bin/temporal-sql-tool" ] \
  && [ -x "$tools/ui/server" ]; then
  exit 0
fi
shared="${XDG_CACHE_HOME:-$HOME/.cache}/svc-tools/temporal-server-$SERVER_VERSION-ui-$UI_VERSION"

if [ ! -f "$shared/.complete" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "temporal-server: Go is not installed. Install Go >= 1.26.5 (https://go.dev/dl)." >&2
    exit 1
  fi
  build="$(mktemp -d)"
  trap 'rm -rf "$build"' EXIT
  echo "temporal-server: building the Temporal server $SERVER_VERSION, its SQL tool and UI server $UI_VERSION (one-time, several minutes)" >&2
  CGO_ENABLED=0 GOBIN="$build/bin" go install \
    "go.temporal.io/server/cmd/server@$SERVER_VERSION" \
    "go.temporal.io/server/cmd/tools/sql@$SERVER_VERSION"
  CGO_ENABLED=0 GOBIN="$build/ui" go install "github.com/temporalio/ui-server/v2/cmd/server@$UI_VERSION"
  mkdir -p "$build/out/bin" "$build/out/ui"
  cp "$build/bin/server" "$build/out/bin/temporal-server"
  cp "$build/bin/sql" "$build/out/bin/temporal-sql-tool"
  cp "$build/ui/server" "$build/out/ui/server"
  chmod -R u+w "$build/out"
  touch "$build/out/.complete"
  mkdir -p "$(dirname "$shared")"
  rm -rf "$shared.tmp.$$" && cp -r "$build/out" "$shared.tmp.$$"
  rm -rf "$shared" && mv "$shared.tmp.$$" "$shared"
fi

mkdir -p "$tools/bin" "$tools/ui"
cp "$shared/bin/temporal-server" "$shared/bin/temporal-sql-tool" "$tools/bin/"
cp "$shared/ui/server" "$tools/ui/server"
rm -f "$tools"/.server-*
touch "$stamp"
