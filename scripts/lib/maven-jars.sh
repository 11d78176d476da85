# Sourced by the scripts that run a Java tool from Maven Central (kafka.sh, helm.sh,
# openapi-generator.sh): the jars a pom names, downloaded once into a cache and reused.

# maven_jars POM HOME WHAT [MVN_ARG...]: makes HOME/libs hold POM's dependencies. A marker keyed
# on the pom is written only after a complete download, so a version bump re-fetches and an
# interrupted download (into a temp dir swapped in at the end) never looks usable. One download
# at a time: test workers may start together on a fresh machine.
maven_jars() {
  local pom="$1" home="$2" what="$3"
  shift 3
  local libs="$home/libs" hash
  hash="$(sha256sum "$pom" | cut -d' ' -f1)"
  [[ -f "$libs/.complete" && "$(cat "$libs/.complete")" == "$hash" ]] && return
  command -v mvn >/dev/null || { echo "ERROR: mvn not found (needed once to download $what from Maven Central)" >&2; return 1; }
  mkdir -p "$home"
  exec 9>"$home/.lock"
  flock 9
  [[ -f "$libs/.complete" && "$(cat "$libs/.complete")" == "$hash" ]] && { exec 9>&-; return; }
  echo "downloading $what into $libs (one-off, cached)..." >&2
  local tmp="$home/libs.tmp.$$"
  rm -rf "$tmp"
  # Output captured (even -q emits ANSI resets) and shown only on failure.
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$tmp" "$@" >"$home/mvn.log" 2>&1; then
    cat "$home/mvn.log" >&2
    rm -rf "$tmp"
    exec 9>&-
    echo "ERROR: maven failed to download $what (log: $home/mvn.log)" >&2
    return 1
  fi
  echo "$hash" >"$tmp/.complete"
  rm -rf "$libs"
  mv "$tmp" "$libs"
  exec 9>&-
}
