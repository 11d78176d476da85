#!/usr/bin/env bash
# Lints and renders a Helm chart with the real Helm engine, without a helm binary: helm-java
# (Helm's Go code compiled as a native library, called from Java) comes from Maven Central via
# scripts/helm/pom.xml and is cached, so only the first run downloads (about 30 MB).
# Only a JDK (17+) and maven are required.
#
# Usage: scripts/helm.sh fetch                 (download and compile only; CI runs it up front)
#        scripts/helm.sh lint CHART [--strict]
#        scripts/helm.sh template CHART [--release NAME] [--namespace NS] [--kube-version V]
#                                       [-f VALUES]... [--set KEY=VALUE]...
# Env:   HELM_HOME (~/.cache/paygate-helm; jar cache),
#        HELM_KUBE_VERSION (1.33.0; the Kubernetes version `template` renders for unless
#          --kube-version is given: helm-java's own default, 1.20, is older than the chart allows)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/maven-jars.sh
source "$SCRIPT_DIR/lib/maven-jars.sh"
POM="$SCRIPT_DIR/helm/pom.xml"
PROGRAM="$SCRIPT_DIR/helm/Helm.java"

HELM_HOME="${HELM_HOME:-$HOME/.cache/paygate-helm}"
HELM_KUBE_VERSION="${HELM_KUBE_VERSION:-1.33.0}"
LIBS_DIR="$HELM_HOME/libs"

die() { echo "[helm] ERROR: $*" >&2; exit 1; }

ensure_libs() { maven_jars "$POM" "$HELM_HOME" helm-java || die "could not fetch helm-java"; }

# Helm.java compiled once per version of it: half the CPU of a source launch on every run.
ensure_classes() {
  CLASSES_DIR="$HELM_HOME/classes/$(cat "$PROGRAM" "$POM" | sha256sum | cut -c1-16)"
  [[ -f "$CLASSES_DIR/Helm.class" ]] && return
  command -v javac >/dev/null || die "javac not found (a JDK, not only a JRE, is needed)"
  local tmp="$CLASSES_DIR.tmp.$$"
  rm -rf "$tmp"
  javac -d "$tmp" -cp "$LIBS_DIR/*" "$PROGRAM" || { rm -rf "$tmp"; die "could not compile $PROGRAM"; }
  # Another run may have compiled it meanwhile; either copy is the same.
  mv -T "$tmp" "$CLASSES_DIR" 2>/dev/null || rm -rf "$tmp"
}

run_helm() {
  command -v java >/dev/null || die "java not found"
  ensure_libs
  ensure_classes
  # A short-lived JVM: the C1 compiler alone starts faster.
  exec java -Xmx256m -XX:TieredStopAtLevel=1 -cp "$CLASSES_DIR:$LIBS_DIR/*" Helm "$@"
}

case "${1:-}" in
  fetch) ensure_libs && ensure_classes ;;
  lint) run_helm "$@" ;;
  template)
    if [[ " $* " == *" --kube-version "* ]]; then run_helm "$@"; else run_helm "$@" --kube-version "$HELM_KUBE_VERSION"; fi
    ;;
  *) echo "usage: $0 fetch | lint CHART [--strict] | template CHART [options] (see the header of $0)" >&2; exit 2 ;;
esac
