#!/usr/bin/env bash
# Runs openapi-generator (the CLI, one self-contained jar) without installing it: the jar comes
# from Maven Central via scripts/openapi-generator/pom.xml and is cached, so only the first run
# downloads (about 30 MB). Only a JDK (11+) and maven are required.
#
# Usage: scripts/openapi-generator.sh fetch      (download only; CI runs it up front)
#        scripts/openapi-generator.sh jar        (prints the jar's path, downloading it first if needed)
#        scripts/openapi-generator.sh ARGS...    (the CLI itself, e.g. generate -i URL -g python -o DIR)
# Env:   OPENAPI_GENERATOR_HOME (~/.cache/paygate-openapi-generator; jar cache)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$SCRIPT_DIR/openapi-generator/pom.xml"

GENERATOR_HOME="${OPENAPI_GENERATOR_HOME:-$HOME/.cache/paygate-openapi-generator}"
LIBS_DIR="$GENERATOR_HOME/libs"
# Written only after a complete download; keyed on the pom so a version bump re-fetches.
LIBS_MARKER="$LIBS_DIR/.complete"

die() { echo "[openapi-generator] ERROR: $*" >&2; exit 1; }

pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }
libs_ready() { [[ -f "$LIBS_MARKER" && "$(cat "$LIBS_MARKER")" == "$(pom_hash)" ]]; }

ensure_libs() {
  libs_ready && return
  command -v mvn >/dev/null || die "mvn not found (needed once to download openapi-generator from Maven Central)"
  mkdir -p "$GENERATOR_HOME"
  # One download at a time: test workers may start together on a fresh machine.
  exec 9>"$GENERATOR_HOME/.lock"
  flock 9
  libs_ready && return
  echo "[openapi-generator] downloading openapi-generator-cli into $LIBS_DIR (one-off, cached)..." >&2
  # Into a temp dir swapped in at the end, so an interrupted download never looks usable.
  local tmp="$GENERATOR_HOME/libs.tmp.$$"
  rm -rf "$tmp"
  # The CLI jar bundles its dependencies: copying them as well would only download them twice.
  if ! mvn -q -B -f "$POM" dependency:copy-dependencies -DexcludeTransitive=true -DoutputDirectory="$tmp" \
      >"$GENERATOR_HOME/mvn.log" 2>&1; then
    cat "$GENERATOR_HOME/mvn.log" >&2
    rm -rf "$tmp"
    die "maven failed to download openapi-generator (log: $GENERATOR_HOME/mvn.log)"
  fi
  pom_hash > "$tmp/.complete"
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
}

jar_path() {
  local jars=("$LIBS_DIR"/openapi-generator-cli-*.jar)
  [[ -f "${jars[0]}" ]] || die "no openapi-generator-cli jar in $LIBS_DIR"
  echo "${jars[0]}"
}

case "${1:-}" in
  fetch) ensure_libs ;;
  jar) ensure_libs && jar_path ;;
  "") echo "usage: $0 fetch | jar | ARGS... (openapi-generator-cli's own, e.g. generate -i URL -g python -o DIR)" >&2; exit 2 ;;
  *)
    command -v java >/dev/null || die "java not found"
    ensure_libs
    # A short-lived JVM: the C1 compiler alone starts faster.
    exec java -Xmx512m -XX:TieredStopAtLevel=1 -jar "$(jar_path)" "$@"
    ;;
esac
