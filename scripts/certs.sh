#!/usr/bin/env bash
# Issues a private CA and one certificate it signs, in a Kubernetes TLS Secret's layout
# (ca.crt, tls.crt, tls.key): what COMMANDS_TLS_DIR reads, so that the apps of one layout
# authenticate each other's commands (mutual TLS). Also used for test brokers and databases.
#
# Usage: scripts/certs.sh <dir> [subject-alt-name ...]
#   <dir>  created if missing; a dir that already holds all three files is left as it is, so
#          running a layout's start block again keeps its certificates.
#   names  DNS:… or IP:… entries for the certificate (default DNS:localhost IP:127.0.0.1 IP:::1);
#          the command transport checks the chain, not the name, the brokers and databases check both.
# Env:     CERT_DAYS (365). The CA's key stays in <dir>/ca.key, beside what it signed: a layout
#          on one machine needs no more; in a cluster, cert-manager (or your PKI) issues instead.
set -euo pipefail

dir="${1:?usage: scripts/certs.sh <dir> [DNS:name|IP:address ...]}"
shift
days="${CERT_DAYS:-365}"
names=("$@")
[ "${#names[@]}" -gt 0 ] || names=(DNS:localhost IP:127.0.0.1 IP:::1)

if [ -s "$dir/ca.crt" ] && [ -s "$dir/tls.crt" ] && [ -s "$dir/tls.key" ]; then
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
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=paygate" \
  -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
san="$(IFS=,; echo "${names[*]}")"
printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
  "extendedKeyUsage=serverAuth,clientAuth" "subjectAltName=$san" >"$work/ext.cnf"
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
  -days "$days" -extfile "$work/ext.cnf" -out "$work/tls.crt" 2>/dev/null

rm -f "$work/tls.csr" "$work/ext.cnf" "$work/ca.srl"
chmod 700 "$work"
if [ -d "$dir" ] && [ -z "$(ls -A "$dir")" ]; then rmdir "$dir"; fi
if mv -T "$work" "$dir" 2>/dev/null; then
  echo "certificates in $dir (ca.crt, tls.crt, tls.key; valid $days days)"
elif [ -s "$dir/ca.crt" ] && [ -s "$dir/tls.crt" ] && [ -s "$dir/tls.key" ]; then
  echo "certificates in $dir (issued by another run just now)"
else
  echo "scripts/certs.sh: $dir exists and does not hold ca.crt, tls.crt and tls.key; move it aside" >&2
  exit 1
fi
