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
# shellcheck source=lib/maven-jars.sh
source "$SCRIPT_DIR/lib/maven-jars.sh"
POM="$SCRIPT_DIR/openapi-generator/pom.xml"

GENERATOR_HOME="${OPENAPI_GENERATOR_HOME:-$HOME/.cache/paygate-openapi-generator}"
LIBS_DIR="$GENERATOR_HOME/libs"

die() { echo "[openapi-generator] ERROR: $*" >&2; exit 1; }

# The CLI jar bundles its dependencies: copying them as well would only download them twice.
ensure_libs() { maven_jars "$POM" "$GENERATOR_HOME" openapi-generator-cli -DexcludeTransitive=true || die "could not fetch openapi-generator-cli"; }

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
