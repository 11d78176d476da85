#!/usr/bin/env bash
# Issues a private CA and certificates it signs, each folder in a Kubernetes TLS Secret's layout
# (ca.crt, tls.crt, tls.key).
#
# Usage: scripts/certs.sh <dir> [subject-alt-name ...]
#          one certificate in <dir>: for test brokers and databases.
#        scripts/certs.sh --apps <dir> [subject-alt-name ...]
#          one certificate per app in <dir>/<app>/, naming the app as spiffe://paygate/<app>:
#          each app's COMMANDS_TLS_DIR. A service takes commands only from the apps its contract
#          lets send them, and a sender talks only to the app that serves (docs/security.md).
#   <dir>  created if missing; a dir that already holds every certificate is left as it is, so
#          running a layout's start block again keeps its certificates.
#   names  DNS:… or IP:… entries for the certificates (default DNS:localhost IP:127.0.0.1 IP:::1);
#          the command transport checks the app's name, the brokers and databases these.
# Env:     CERT_DAYS (365). The CA's key stays in <dir>/ca.key, beside what it signed: a layout
#          on one machine needs no more; in a cluster, cert-manager (or your PKI) issues instead.
set -euo pipefail

# The apps of a distributed layout (APPS in libs/contracts/src/service-contract.ts).
APPS=(api-gateway collections service-payments webhook-dispatcher sandbox)

per_app=false
if [ "${1:-}" = "--apps" ]; then
  per_app=true
  shift
fi
dir="${1:?usage: scripts/certs.sh [--apps] <dir> [DNS:name|IP:address ...]}"
shift
days="${CERT_DAYS:-365}"
names=("$@")
[ "${#names[@]}" -gt 0 ] || names=(DNS:localhost IP:127.0.0.1 IP:::1)

issued() {
  local folder
  if $per_app; then
    for app in "${APPS[@]}"; do
      folder="$1/$app"
      [ -s "$folder/ca.crt" ] && [ -s "$folder/tls.crt" ] && [ -s "$folder/tls.key" ] || return 1
    done
  else
    [ -s "$1/ca.crt" ] && [ -s "$1/tls.crt" ] && [ -s "$1/tls.key" ]
  fi
}

if issued "$dir"; then
  exit 0
fi
command -v openssl >/dev/null || { echo "scripts/certs.sh: openssl not found" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
umask 077
# Issued beside <dir> and renamed into place whole: two layouts starting at once never mix one
# CA's certificate with another's key, and the one that loses the rename keeps the winner's.
work="$(mktemp -d "$(dirname "$dir")/.certs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# P-256 keys: quick to make and to handshake with, and accepted by Node, Java (Kafka) and PostgreSQL.
openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days "$days" \
  -subj "/CN=Paygate private CA" -keyout "$work/ca.key" -out "$work/ca.crt" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

# issue <folder> <common name> <subject alt names>: tls.crt and tls.key signed by the CA, and its ca.crt.
issue() {
  mkdir -p "$1"
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=$2" \
    -keyout "$1/tls.key" -out "$1/tls.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth,clientAuth" "subjectAltName=$3" >"$1/ext.cnf"
  openssl x509 -req -in "$1/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
    -days "$days" -extfile "$1/ext.cnf" -out "$1/tls.crt" 2>/dev/null
  rm -f "$1/tls.csr" "$1/ext.cnf" "$work/ca.srl"
  [ "$1" = "$work" ] || cp "$work/ca.crt" "$1/ca.crt"
}

san="$(IFS=,; echo "${names[*]}")"
if $per_app; then
  for app in "${APPS[@]}"; do issue "$work/$app" "$app" "URI:spiffe://paygate/$app,$san"; done
else
  issue "$work" paygate "$san"
fi

chmod 700 "$work"
if [ -d "$dir" ] && [ -z "$(ls -A "$dir")" ]; then rmdir "$dir"; fi
if mv -T "$work" "$dir" 2>/dev/null; then
  if $per_app; then
    echo "certificates in $dir/<app> for ${APPS[*]} (ca.crt, tls.crt, tls.key; valid $days days)"
  else
    echo "certificates in $dir (ca.crt, tls.crt, tls.key; valid $days days)"
  fi
elif issued "$dir"; then
  echo "certificates in $dir (issued by another run just now)"
else
  echo "scripts/certs.sh: $dir exists and does not hold the certificates; move it aside" >&2
  exit 1
fi
