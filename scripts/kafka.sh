#!/usr/bin/env bash
# Runs a real single-node Apache Kafka broker (KRaft, no ZooKeeper) for tests.
# Only java + maven are required: the broker jars come from Maven Central via
# scripts/kafka/pom.xml and are cached, so only the first start is slow.
#
# Usage: scripts/kafka.sh start|stop|status
# Env:   KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093),
#        KAFKA_HOME (~/.cache/paygate-kafka; jar cache),
#        KAFKA_DATA_DIR (/tmp/paygate-kafka; config, data, logs, pid - wiped on start),
#        KAFKA_KEEP_DATA (unset; 1 = keep an already formatted data dir on start, so
#          stop + start is a real broker restart with topics, messages and offsets),
#        KAFKA_START_TIMEOUT (90 seconds), KAFKA_HEAP_OPTS (-Xms128m -Xmx512m),
#        KAFKA_SECURITY (plaintext; sasl_ssl = the client listener speaks TLS and asks for
#          SASL PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512: what BROKER_URL=kafkas:// with
#          KAFKA_SASL_* talks to),
#        KAFKA_TLS_DIR (sasl_ssl: ca.crt, tls.crt, tls.key of the broker, as scripts/certs.sh
#          issues them; unset: issued into $KAFKA_DATA_DIR/tls for 127.0.0.1 and localhost),
#        KAFKA_SASL_USERS (sasl_ssl: name:password[,name:password], each a PLAIN user and a
#          SCRAM-SHA-256/512 credential; default paygate:paygate-secret. SCRAM credentials are
#          written when the data dir is formatted, so a KAFKA_KEEP_DATA restart keeps the first ones)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/maven-jars.sh
source "$SCRIPT_DIR/lib/maven-jars.sh"
POM="$SCRIPT_DIR/kafka/pom.xml"

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HOME="${KAFKA_HOME:-$HOME/.cache/paygate-kafka}"
KAFKA_DATA_DIR="${KAFKA_DATA_DIR:-/tmp/paygate-kafka}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
# Small heap: 2-core shared machine, and a test broker holds very little data.
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m}"

LIBS_DIR="$KAFKA_HOME/libs"
PID_FILE="$KAFKA_DATA_DIR/kafka.pid"
BROKER_LOG="$KAFKA_DATA_DIR/broker.log"
CONFIG="$KAFKA_DATA_DIR/server.properties"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
KAFKA_SECURITY="${KAFKA_SECURITY:-plaintext}"
KAFKA_TLS_DIR="${KAFKA_TLS_DIR:-$KAFKA_DATA_DIR/tls}"
KAFKA_SASL_USERS="${KAFKA_SASL_USERS:-paygate:paygate-secret}"
# The broker's own PLAIN login (inter-broker traffic, this script's readiness check).
CLIENT_CONFIG="$KAFKA_DATA_DIR/client.properties"
case "$KAFKA_SECURITY" in
  plaintext) LISTENER=PLAINTEXT ;;
  sasl_ssl) LISTENER=SASL_SSL ;;
  *) echo "[kafka] ERROR: KAFKA_SECURITY must be plaintext or sasl_ssl, got \"$KAFKA_SECURITY\"" >&2; exit 2 ;;
esac

log() { echo "[kafka] $*"; }
die() { echo "[kafka] ERROR: $*" >&2; exit 1; }

ensure_libs() { maven_jars "$POM" "$KAFKA_HOME" "the Kafka jars" || die "could not fetch the Kafka jars"; }

# Pid from the pid file, if that process is alive and really is our broker
# (guards against a stale pid file whose pid got reused).
broker_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Real protocol-level check: an Admin client round-trip (list topics).
broker_answers() {
  timeout 30 java -Xmx128m -cp "$LIBS_DIR/*" \
    -Dlog4j.configuration="file:$KAFKA_DATA_DIR/tools-log4j.properties" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" "${COMMAND_CONFIG[@]}" --list >/dev/null 2>&1
}

COMMAND_CONFIG=()
[[ "$KAFKA_SECURITY" == sasl_ssl ]] && COMMAND_CONFIG=(--command-config "$CLIENT_CONFIG")

# The name:password entries of KAFKA_SASL_USERS, checked before anything is written: the JAAS
# line quotes passwords with ", and the StorageTool's SCRAM argument splits on , = [ ].
SASL_USERS=()
if [[ "$KAFKA_SECURITY" == sasl_ssl ]]; then
  IFS=',' read -ra SASL_USERS <<<"$KAFKA_SASL_USERS"
  valid_user='^[A-Za-z0-9._-]+:[^]\,="[]+$'
  for entry in "${SASL_USERS[@]}"; do
    [[ "$entry" =~ $valid_user ]] || die "KAFKA_SASL_USERS entries must be name:password (no , = \" \\ [ ] in a password)"
  done
fi

# A PEM file as one properties value: Java's properties turn each \n back into a line break.
pem_value() { awk '{ printf "%s\\n", $0 }' "$1"; }

# The SASL_SSL listener: TLS with the KAFKA_TLS_DIR certificate (PEM, no JKS conversion), and
# PLAIN users from the JAAS line; SCRAM users live in the cluster metadata (scram_arguments).
write_security_config() {
  if [[ ! -s "$KAFKA_TLS_DIR/tls.crt" ]]; then
    bash "$SCRIPT_DIR/certs.sh" "$KAFKA_TLS_DIR" DNS:localhost IP:127.0.0.1 >/dev/null
  fi
  local admin_password users="" entry
  admin_password="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
  for entry in "${SASL_USERS[@]}"; do users+=" user_${entry%%:*}=\"${entry#*:}\""; done
  # Passwords and the broker's key: readable by this user only.
  chmod 600 "$CONFIG"
  cat >> "$CONFIG" <<EOF
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=PLAIN
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password" user_admin="$admin_password"$users;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
ssl.keystore.type=PEM
ssl.keystore.certificate.chain=$(pem_value "$KAFKA_TLS_DIR/tls.crt")
ssl.keystore.key=$(pem_value "$KAFKA_TLS_DIR/tls.key")
ssl.truststore.type=PEM
ssl.truststore.location=$KAFKA_TLS_DIR/ca.crt
ssl.client.auth=none
EOF
  ( umask 077
    cat > "$CLIENT_CONFIG" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password";
ssl.truststore.type=PEM
ssl.truststore.location=$KAFKA_TLS_DIR/ca.crt
EOF
  )
}

# StorageTool arguments that create each KAFKA_SASL_USERS credential for both SCRAM mechanisms.
scram_arguments() {
  [[ "$KAFKA_SECURITY" == sasl_ssl ]] || return 0
  local entry mechanism
  for entry in "${SASL_USERS[@]}"; do
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
      printf '%s\n' --add-scram "$mechanism=[name=${entry%%:*},password=${entry#*:}]"
    done
  done
}

write_config() {
  mkdir -p "$KAFKA_DATA_DIR/data"
  cat > "$CONFIG" <<EOF
# Generated by scripts/kafka.sh - single-node KRaft broker for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=$LISTENER://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=$LISTENER://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,$LISTENER:$LISTENER
inter.broker.listener.name=$LISTENER
log.dirs=$KAFKA_DATA_DIR/data
num.partitions=3
auto.create.topics.enable=true
# Single node: internal topics cannot have more than one replica.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
default.replication.factor=1
min.insync.replicas=1
# Consumer groups form immediately instead of waiting 3 s for more members.
group.initial.rebalance.delay.ms=0
# Fewer internal partitions -> faster startup and less memory for a test broker.
offsets.topic.num.partitions=10
num.network.threads=2
num.io.threads=4
EOF
  if [[ "$KAFKA_SECURITY" == sasl_ssl ]]; then write_security_config; fi
  # Broker logs go to stdout, which start() redirects into $BROKER_LOG.
  cat > "$KAFKA_DATA_DIR/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
EOF
  # CLI tools: keep their output free of client INFO noise.
  cat > "$KAFKA_DATA_DIR/tools-log4j.properties" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

fail_start() {
  echo "[kafka] ERROR: $*" >&2
  if [[ -f "$BROKER_LOG" ]]; then
    echo "[kafka] --- last 40 lines of $BROKER_LOG ---" >&2
    tail -n 40 "$BROKER_LOG" >&2 || true
  fi
  exit 1
}

wait_ready() {
  local pid="$1" deadline=$((SECONDS + KAFKA_START_TIMEOUT))
  while (( SECONDS < deadline )); do
    kill -0 "$pid" 2>/dev/null || fail_start "broker process $pid exited during startup"
    # Cheap checks first; only then pay for a JVM-based Admin round-trip.
    if grep -q 'Kafka Server started' "$BROKER_LOG" 2>/dev/null && port_open "$KAFKA_PORT" \
        && broker_answers; then
      return 0
    fi
    sleep 1
  done
  fail_start "broker did not answer on $BOOTSTRAP within ${KAFKA_START_TIMEOUT}s (pid $pid still running; run '$0 stop')"
}

cmd_start() {
  command -v java >/dev/null || die "java not found"
  local pid
  if pid="$(broker_pid)"; then
    grep -q "^listeners=$LISTENER://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT\$" "$CONFIG" 2>/dev/null \
      || die "broker pid $pid from $KAFKA_DATA_DIR runs on other ports or another KAFKA_SECURITY; stop it first or use a separate KAFKA_DATA_DIR"
    if port_open "$KAFKA_PORT" && { ensure_libs; broker_answers; }; then
      log "already running (pid $pid) on $BOOTSTRAP"
      return 0
    fi
    # Probably a start still in progress from another invocation: wait for it
    # rather than wiping the data dir underneath it.
    log "broker pid $pid is alive but not answering yet; waiting..."
    wait_ready "$pid"
    log "running (pid $pid) on $BOOTSTRAP"
    return 0
  fi

  # Someone else on our ports would make the new broker die with a bind error.
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    if port_open "$p"; then
      die "port $p is already in use by another process (not our broker); set KAFKA_PORT/KAFKA_CONTROLLER_PORT"
    fi
  done

  ensure_libs

  if [[ "${KAFKA_KEEP_DATA:-}" == "1" && -f "$KAFKA_DATA_DIR/data/meta.properties" ]]; then
    # Restart: keep the formatted log dir (topics, messages, committed offsets).
    log "keeping existing data in $KAFKA_DATA_DIR (KAFKA_KEEP_DATA=1)"
    write_config
  else
    # Fresh data dir on every start so tests never see stale topics/offsets.
    rm -rf "$KAFKA_DATA_DIR"
    write_config

    # Any 16 random bytes as unpadded base64url is a valid cluster id; avoids an
    # extra JVM launch for `StorageTool random-uuid`.
    local cluster_id
    # One in 64 starts with "-", which the tool's argument parser takes for an option: give it
    # another first character (the id stays 16 bytes).
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
    [[ "$cluster_id" == -* ]] && cluster_id="A${cluster_id:1}"
    local scram
    mapfile -t scram < <(scram_arguments)
    java -Xmx128m -cp "$LIBS_DIR/*" \
      -Dlog4j.configuration="file:$KAFKA_DATA_DIR/tools-log4j.properties" \
      kafka.tools.StorageTool format -t "$cluster_id" -c "$CONFIG" "${scram[@]}" >"$KAFKA_DATA_DIR/format.log" 2>&1 \
      || { cat "$KAFKA_DATA_DIR/format.log" >&2; die "storage format failed"; }
  fi

  log "starting broker on $BOOTSTRAP ($KAFKA_SECURITY; controller 127.0.0.1:$KAFKA_CONTROLLER_PORT, data $KAFKA_DATA_DIR)"
  # setsid: own session, so the broker outlives the shell/job that started it
  # (e.g. a CI step or an Nx target) until `stop` is called.
  # shellcheck disable=SC2086  # KAFKA_HEAP_OPTS is intentionally word-split
  setsid nohup java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$KAFKA_DATA_DIR/log4j.properties" \
    -Dkafka.logs.dir="$KAFKA_DATA_DIR" \
    -cp "$LIBS_DIR/*" kafka.Kafka "$CONFIG" \
    >"$BROKER_LOG" 2>&1 </dev/null &
  pid=$!
  echo "$pid" > "$PID_FILE"

  wait_ready "$pid"
  log "running (pid $pid) on $BOOTSTRAP"
}

cmd_stop() {
  local pid
  if ! pid="$(broker_pid)"; then
    rm -f "$PID_FILE"
    log "not running"
    return 0
  fi
  log "stopping broker (pid $pid)..."
  kill -TERM "$pid" 2>/dev/null || true
  # Graceful shutdown flushes logs and releases the controller port cleanly.
  local i
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "did not exit after 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE"
  log "stopped"
}

cmd_status() {
  local pid
  if pid="$(broker_pid)" && port_open "$KAFKA_PORT"; then
    echo "running (pid $pid) on $BOOTSTRAP"
    return 0
  elif [[ -n "${pid:-}" ]]; then
    echo "stopped (pid $pid alive but $BOOTSTRAP not accepting connections - starting or hung)"
    return 1
  fi
  echo "stopped"
  return 1
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
