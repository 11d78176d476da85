import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret } from '@paygate/config';
import { SqlEventStore, type RecordedEvent } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { freePort } from '@paygate/net-guard';
import { describeWithService, eventually, issueTestCertificates, runKafkaScript } from '@paygate/testing';
import type { KafkaSecurity } from './kafka/kafka-connection';
import { openMessaging, type Messaging } from './open-messaging';

/*
 * Issue #26: "TLS and SASL where the data flows". A broker of the suite's own (scripts/kafka.sh
 * with KAFKA_SECURITY=sasl_ssl, on ports of its own, certificate from scripts/certs.sh): the
 * event bus authenticates with SCRAM or PLAIN over TLS, a wrong password and a broker whose
 * certificate another CA signed are refused, and no password reaches a log line or an error.
 */

/** Every line the clients log, at every level, so a test can look for a leaked password in them. */
function recordingLogger(fields: Record<string, unknown> = {}, lines: string[] = []): Logger & { lines: string[] } {
  const record = (level: string) => (message: string, more?: Record<string, unknown>) =>
    void lines.push(
      JSON.stringify({ level, message, ...fields, ...more }, (_key, value: unknown) =>
        value instanceof Error ? value.message : value,
      ),
    );
  return {
    lines,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: (more) => recordingLogger({ ...fields, ...more }, lines),
  };
}

describeWithService('kafka', 'Kafka over TLS with SASL (a SASL_SSL broker of its own)', () => {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const wrongPassword = `wrong-${randomBytes(12).toString('hex')}`;
  let dir: string;
  let broker: Record<string, string>;
  let url: string;
  let brokerCa: string;
  let otherCa: string;
  let db: SqlDatabase;
  let store: SqlEventStore;
  const opened: Messaging[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-kafka-tls-'));
    issueTestCertificates({ dir: join(dir, 'broker'), names: ['DNS:localhost', 'IP:127.0.0.1'] });
    issueTestCertificates({ dir: join(dir, 'other'), names: ['DNS:localhost', 'IP:127.0.0.1'] });
    brokerCa = readFileSync(join(dir, 'broker/ca.crt'), 'utf8');
    otherCa = readFileSync(join(dir, 'other/ca.crt'), 'utf8');
    const port = await freePort();
    broker = {
      KAFKA_SECURITY: 'sasl_ssl',
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      KAFKA_DATA_DIR: join(dir, 'kafka'),
      KAFKA_TLS_DIR: join(dir, 'broker'),
      KAFKA_SASL_USERS: `paygate:${password}`,
      KAFKA_KEEP_DATA: '',
    };
    url = `kafkas://127.0.0.1:${port}`;
    const started = await runKafkaScript('start', broker);
    if (started.status !== 0) throw new Error(`could not start the suite's SASL_SSL broker:\n${started.output}`);
    db = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(db);
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((messaging) => messaging.close()));
    await db?.close();
    if (broker) await runKafkaScript('stop', broker);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const open = async (kafka: KafkaSecurity, log: Logger) => {
    const messaging = await openMessaging(
      url,
      { store, sql: db, log },
      { clientId: 'kafka-tls-test', partitions: 1, kafka },
    );
    opened.push(messaging);
    return messaging;
  };

  it.each(['scram-sha-512', 'plain', 'scram-sha-256'] as const)(
    'authenticates with %s over TLS and carries an event from the store to a consumer',
    async (mechanism) => {
      const log = recordingLogger();
      const messaging = await open(
        { tlsCa: brokerCa, saslMechanism: mechanism, saslUsername: 'paygate', saslPassword: new Secret(password) },
        log,
      );
      await messaging.events.ping();
      const prefix = `tls${randomUUID().replace(/-/g, '').slice(0, 10)}-`;
      const received: RecordedEvent[] = [];
      await messaging.events.publish([prefix]);
      await messaging.events.consume(
        { group: `${prefix}reader`, streamPrefixes: [prefix] },
        async (event) => void received.push(event),
      );
      const id = randomUUID();
      await store.appendToStream(`${prefix}1`, [{ id, type: 'TlsChecked', data: { mechanism } }]);
      const event = await eventually(
        () => received.find((e) => e.id === id),
        60_000,
        'the event through the SASL_SSL broker',
      );
      expect(event).toMatchObject({ type: 'TlsChecked', data: { mechanism }, streamName: `${prefix}1` });
      expect(log.lines.join('\n')).not.toContain(password);
    },
    90_000,
  );

  it.each(['scram-sha-512', 'plain'] as const)(
    'refuses a wrong %s password, saying so without the password',
    async (mechanism) => {
      const log = recordingLogger();
      const messaging = await open(
        { tlsCa: brokerCa, saslMechanism: mechanism, saslUsername: 'paygate', saslPassword: new Secret(wrongPassword) },
        log,
      );
      const error = await messaging.events.ping().then(
        () => undefined,
        (failure: unknown) => failure as Error,
      );
      expect(error?.message).toMatch(/SASL (SCRAM SHA512|PLAIN) authentication failed/);
      for (const text of [error?.message, String(error?.stack), JSON.stringify(error), log.lines.join('\n')]) {
        expect(text).not.toContain(wrongPassword);
        expect(text).not.toContain(password);
      }
    },
  );

  it('refuses a broker whose certificate another CA signed', async () => {
    const log = recordingLogger();
    const messaging = await open(
      { tlsCa: otherCa, saslMechanism: 'scram-sha-512', saslUsername: 'paygate', saslPassword: new Secret(password) },
      log,
    );
    const error = await messaging.events.ping().then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(
      /^cannot connect to Kafka over TLS: .*(unable to verify|local issuer|self[- ]signed)/,
    );
    // A configuration problem, not an outage: logged as an error, not left at debug.
    expect(
      log.lines.some(
        (line) => line.includes('"level":"error"') && /unable to verify|local issuer|self[- ]signed/.test(line),
      ),
    ).toBe(true);
    expect(log.lines.join('\n')).not.toContain(password);
  }, 30_000);

  it('refuses a broker certificate without the public CAs trusting it (no KAFKA_TLS_CA_FILE)', async () => {
    const messaging = await open(
      { saslMechanism: 'scram-sha-512', saslUsername: 'paygate', saslPassword: new Secret(password) },
      recordingLogger(),
    );
    await expect(messaging.events.ping()).rejects.toThrow(/^cannot connect to Kafka over TLS: /);
  }, 30_000);
});
