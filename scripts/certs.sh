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
mkdir -p "$dir"
umask 077
work="$(mktemp -d)"
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

# The files appear together: a reader never finds a certificate without its key.
mv "$work/ca.key" "$work/ca.crt" "$work/tls.key" "$work/tls.crt" "$dir/"
echo "certificates in $dir (ca.crt, tls.crt, tls.key; valid $days days)"
