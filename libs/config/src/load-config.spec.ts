import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError } from './config-error';
import { loadConfig, readSetting, standaloneDefaults, withDefaults } from './load-config';
import { CONFIG_SCHEMA, settingsOf } from './schema';
import { Secret } from './secret';
import { parseDurationMs } from './settings';

const MASTER_KEY = '0f'.repeat(32);
const CA_DIR = mkdtempSync(join(tmpdir(), 'paygate-config-ca-'));
const CA_FILE = join(CA_DIR, 'ca.crt');
/** Any certificate will do: the file is read and checked to hold PEM certificates, not verified. */
const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n';
writeFileSync(CA_FILE, CA_PEM);
afterAll(() => rmSync(CA_DIR, { recursive: true, force: true }));
const REFUSED_MODE = (mode: string) =>
  `has sslmode=${mode}: use sslmode=verify-full (with sslrootcert=<CA file> for a private CA) or sslmode=disable; node-postgres and libpq disagree on what ${mode} checks`;
const NOT_A_SCHEDULE = (value: string) =>
  `must be a comma-separated list of durations like "0s,10s,1m,2h" (units ms, s, m, h), got "${value}"`;
const NOT_A_PROXY_SETTING = (value: string) =>
  `must be false, a number of hops, or comma-separated IP addresses or CIDR ranges, got "${value}"`;
const ADMIN_TOKEN = 'an-admin-token-0123456789';

/** The ConfigError `env` raises (fails the test when it loads). */
function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not fail`);
}

describe('loadConfig: defaults', () => {
  const config = loadConfig({});

  it('needs no variable at all', () => {
    expect({ ...config, catalogue: undefined, billers: undefined }).toEqual({
      mode: 'test',
      platform: {
        port: 3000,
        host: '0.0.0.0',
        storeUrl: 'pglite://./data/pglite',
        storePoolSize: 20,
        eventStoreUrl: undefined,
        brokerUrl: 'inproc://',
        kafka: { tlsCa: undefined, saslMechanism: undefined, saslUsername: undefined, saslPassword: undefined },
        trustProxy: false,
        commandTimeoutMs: 10_000,
        commandsListenUrl: 'tcp://0.0.0.0:7000',
        collectionsCommandsUrl: 'tcp://collections:7000',
        paymentsCommandsUrl: 'tcp://service-payments:7000',
        webhooksCommandsUrl: 'tcp://webhook-dispatcher:7000',
        commandsTlsDir: undefined,
        migrateOnStart: true,
      },
      input: { maxBodyBytes: 65_536, maxJsonDepth: 32 },
      http: { requestTimeoutMs: 20_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 72_000 },
      shutdown: { timeoutMs: 15_000, delayMs: 5_000 },
      logging: { level: 'info' },
      tracing: {
        endpoint: undefined,
        tracesEndpoint: undefined,
        protocol: 'http/protobuf',
        headers: undefined,
        serviceName: undefined,
      },
      catalogue: undefined,
      billers: undefined,
      collections: {
        confirmationTimeoutMs: 1_800_000,
        promptTimeoutMs: 300_000,
        checkoutTimeoutMs: 1_800_000,
        statusPollMs: 60_000,
        timerTickMs: 10_000,
        providerCallbackUrl: undefined,
        checkoutReturnUrl: undefined,
      },
      payments: {
        billerCode: 'ura_prn_ug',
        retryAttempts: 8,
        retryBaseMs: 30_000,
        retryMaxDelayMs: 900_000,
        statusPollMs: 60_000,
        timerTickMs: 10_000,
      },
      disbursements: {
        statusPollMs: 20_000,
        attentionAfterMs: 3_600_000,
        approvalTimeoutMs: 86_400_000,
        reversalWatchMs: 600_000,
        timerTickMs: 10_000,
        providerCallbackUrl: undefined,
      },
      connectors: {
        momo: {
          apiUrl: undefined,
          apiUser: expect.any(Secret),
          apiKey: expect.any(Secret),
          subscriptionKey: expect.any(Secret),
          disbursementSubscriptionKey: undefined,
          targetEnvironment: 'sandbox',
        },
        card: { apiUrl: undefined, secretKey: expect.any(Secret) },
        biller: { apiUrl: undefined, apiKey: expect.any(Secret) },
        timeoutMs: 10_000,
      },
      delivery: {
        timeoutMs: 10_000,
        retrySchedule: [
          0, 10_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
        ],
        allowPrivate: false,
        perHostConcurrency: 4,
        maxInFlight: 256,
        tickMs: 10_000,
      },
      gateway: { adminToken: undefined },
      rateLimits: {
        enabled: true,
        merchant: { perSecond: 50, burst: 100 },
        public: { perSecond: 20, burst: 60 },
        provider: { perSecond: 100, burst: 300 },
      },
      merchants: { masterKey: undefined },
      sandbox: {
        latencyMs: 500,
        unansweredHoldMs: 15_000,
        lateCompletionMs: 30_000,
        reversalDelayMs: 10_000,
        publicUrl: undefined,
      },
      standalone: { dataDir: './data' },
    });
  });

  it('uses the sandbox credentials the connectors use today', () => {
    const { momo, card, biller } = config.connectors;
    expect(
      [momo.apiUser, momo.apiKey, momo.subscriptionKey, card.secretKey, biller.apiKey].map((secret) => secret.reveal()),
    ).toEqual(['sandbox-user', 'sandbox-key', 'sandbox-subscription-key', 'sandbox-card-secret', 'sandbox-biller-key']);
  });

  it('reads the provider catalogue from config/providers.json', () => {
    expect([...config.catalogue.keys()]).toEqual(expect.arrayContaining(['mtn_momo_ug', 'airtel_money_ug']));
    expect(config.catalogue.get('mtn_momo_ug')).toMatchObject({
      method: 'MOBILE_MONEY',
      currency: 'UGX',
      callingCode: '256',
    });
  });

  it('reads the biller catalogue from config/billers.json: URA PRNs, 13 digits, paid by the biller connector', () => {
    expect([...config.billers.keys()]).toEqual(['ura_prn_ug']);
    const ura = config.billers.get('ura_prn_ug')!;
    expect(ura).toMatchObject({ currency: 'UGX', countryCode: 'UG', connector: 'biller' });
    expect(
      ['2250000001301', '22500000013011', '225000000130', '225000000130x'].map((prn) => ura.referencePattern.test(prn)),
    ).toEqual([true, false, false, false]);
  });

  it('treats an empty variable as unset', () => {
    const empty = Object.fromEntries(settingsOf().map((setting) => [setting.variable, '']));
    expect(JSON.stringify(loadConfig(empty))).toBe(JSON.stringify(config));
  });
});

describe('loadConfig: every variable', () => {
  it('is read into its section', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '::',
      STORE_URL: 'postgres://paygate:pw@db:5432/paygate?schema=test',
      EVENT_STORE_URL: 'kurrentdb://kdb:2113?tls=false',
      BROKER_URL: 'kafkas://k1:9093,k2:9093',
      KAFKA_TLS_CA_FILE: CA_FILE,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'paygate',
      KAFKA_SASL_PASSWORD: 'kafka-pw-1',
      MAX_BODY_BYTES: '1048576',
      MAX_JSON_DEPTH: '8',
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'warn',
      CONFIRMATION_TIMEOUT_MS: '1500',
      PROMPT_TIMEOUT_MS: '1500',
      CHECKOUT_TIMEOUT_MS: '60000',
      PROVIDER_STATUS_POLL_MS: '300',
      TIMER_TICK_MS: '0',
      PROVIDER_CALLBACK_URL: 'https://collections.example/',
      CHECKOUT_RETURN_URL: 'https://api.example',
      PRN_BILLER_CODE: 'other_biller',
      PAYMENT_RETRY_ATTEMPTS: '3',
      PAYMENT_RETRY_BASE_MS: '200',
      PAYMENT_RETRY_MAX_DELAY_MS: '400',
      PAYMENT_STATUS_POLL_MS: '3000',
      PAYMENT_TIMER_TICK_MS: '50',
      MOMO_API_URL: 'https://momo.example/collection//',
      MOMO_API_USER: 'user-1',
      MOMO_API_KEY: 'key-1',
      MOMO_SUBSCRIPTION_KEY: 'sub-1',
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'sub-disbursement-1',
      MOMO_TARGET_ENVIRONMENT: 'mtnuganda',
      CARD_API_URL: 'https://card.example',
      CARD_SECRET_KEY: 'card-1',
      PROVIDER_TIMEOUT_MS: '2000',
      CALLBACK_TIMEOUT_MS: '300',
      CALLBACK_RETRY_SCHEDULE: '0, 50,250ms,2s,3m,1h',
      ALLOW_PRIVATE_CALLBACKS: 'true',
      CALLBACK_CONCURRENCY_PER_HOST: '2',
      CALLBACK_MAX_IN_FLIGHT: '32',
      DISPATCH_TICK_MS: '25',
      ADMIN_TOKEN,
      MASTER_KEY,
      SANDBOX_LATENCY_MS: '50',
      SANDBOX_UNANSWERED_HOLD_MS: '1500',
      SANDBOX_LATE_COMPLETION_MS: '3000',
      SANDBOX_REVERSAL_DELAY_MS: '1000',
      SANDBOX_PUBLIC_URL: 'https://sandbox.example/',
      DATA_DIR: '/var/lib/paygate',
      TRUST_PROXY: '10.0.0.0/8, 2001:db8::1',
      RATE_LIMIT_ENABLED: 'false',
      RATE_LIMIT_MERCHANT_PER_SECOND: '12.5',
      RATE_LIMIT_MERCHANT_BURST: '25',
      RATE_LIMIT_PUBLIC_PER_SECOND: '0.5',
      RATE_LIMIT_PUBLIC_BURST: '3',
      RATE_LIMIT_PROVIDER_PER_SECOND: '7',
      RATE_LIMIT_PROVIDER_BURST: '9',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      SHUTDOWN_TIMEOUT_MS: '30000',
      SHUTDOWN_DELAY_MS: '5000',
      COMMAND_TIMEOUT_MS: '2500',
      STORE_POOL_SIZE: '8',
      COMMANDS_LISTEN_URL: 'tcp://0.0.0.0:7100',
      COLLECTIONS_COMMANDS_URL: 'tcp://collections-commands:7100',
      PAYMENTS_COMMANDS_URL: 'tcp://10.0.0.7:7100,10.0.0.8:7100',
      WEBHOOKS_COMMANDS_URL: 'tcp://[2001:db8::2]:7100',
      COMMANDS_TLS_DIR: tmpdir(),
    });
    expect(config.platform).toEqual({
      port: 8080,
      host: '::',
      storeUrl: 'postgres://paygate:pw@db:5432/paygate?schema=test',
      storePoolSize: 8,
      eventStoreUrl: 'kurrentdb://kdb:2113?tls=false',
      brokerUrl: 'kafkas://k1:9093,k2:9093',
      kafka: {
        tlsCa: CA_PEM,
        saslMechanism: 'scram-sha-512',
        saslUsername: 'paygate',
        saslPassword: expect.any(Secret),
      },
      trustProxy: '10.0.0.0/8,2001:db8::1',
      commandTimeoutMs: 2_500,
      commandsListenUrl: 'tcp://0.0.0.0:7100',
      collectionsCommandsUrl: 'tcp://collections-commands:7100',
      paymentsCommandsUrl: 'tcp://10.0.0.7:7100,10.0.0.8:7100',
      webhooksCommandsUrl: 'tcp://[2001:db8::2]:7100',
      commandsTlsDir: tmpdir(),
      migrateOnStart: false,
    });
    expect(config.platform.kafka.saslPassword?.reveal()).toBe('kafka-pw-1');
    expect(config.rateLimits).toEqual({
      enabled: false,
      merchant: { perSecond: 12.5, burst: 25 },
      public: { perSecond: 0.5, burst: 3 },
      provider: { perSecond: 7, burst: 9 },
    });
    expect(config.input).toEqual({ maxBodyBytes: 1_048_576, maxJsonDepth: 8 });
    expect(config.logging.level).toBe('warn');
    expect(config.collections).toEqual({
      confirmationTimeoutMs: 1500,
      promptTimeoutMs: 1500,
      checkoutTimeoutMs: 60_000,
      statusPollMs: 300,
      timerTickMs: 0,
      providerCallbackUrl: 'https://collections.example',
      checkoutReturnUrl: 'https://api.example',
    });
    expect(config.payments).toEqual({
      billerCode: 'other_biller',
      retryAttempts: 3,
      retryBaseMs: 200,
      retryMaxDelayMs: 400,
      statusPollMs: 3000,
      timerTickMs: 50,
    });
    const { momo, card, timeoutMs } = config.connectors;
    expect([
      momo.apiUrl,
      momo.apiUser.reveal(),
      momo.apiKey.reveal(),
      momo.subscriptionKey.reveal(),
      momo.targetEnvironment,
      momo.disbursementSubscriptionKey?.reveal(),
    ]).toEqual(['https://momo.example/collection', 'user-1', 'key-1', 'sub-1', 'mtnuganda', 'sub-disbursement-1']);
    expect([card.apiUrl, card.secretKey.reveal(), timeoutMs]).toEqual(['https://card.example', 'card-1', 2000]);
    expect(config.delivery).toEqual({
      timeoutMs: 300,
      retrySchedule: [0, 50, 250, 2_000, 180_000, 3_600_000],
      allowPrivate: true,
      perHostConcurrency: 2,
      maxInFlight: 32,
      tickMs: 25,
    });
    expect(config.gateway.adminToken?.reveal()).toBe(ADMIN_TOKEN);
    expect(config.merchants.masterKey?.reveal()).toBe(MASTER_KEY);
    expect(config.sandbox).toEqual({
      latencyMs: 50,
      unansweredHoldMs: 1_500,
      lateCompletionMs: 3_000,
      reversalDelayMs: 1_000,
      publicUrl: 'https://sandbox.example',
    });
    expect(config.standalone.dataDir).toBe('/var/lib/paygate');
    expect(config.http).toEqual({ requestTimeoutMs: 5000, headersTimeoutMs: 2000, keepAliveTimeoutMs: 65_000 });
    expect(config.shutdown).toEqual({ timeoutMs: 30_000, delayMs: 5000 });
  });

  it('takes MASTER_KEY as base64 too', () => {
    expect(loadConfig({ MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }).merchants.masterKey).toBeInstanceOf(
      Secret,
    );
  });

  it('declares every variable once', () => {
    const variables = settingsOf().map((setting) => setting.variable);
    expect(new Set(variables).size).toBe(variables.length);
    for (const setting of settingsOf()) {
      expect(setting.description).toMatch(/\S/);
      expect(setting.type).toMatch(/\S/);
      expect(setting.description).not.toContain('\n');
    }
  });
});

describe('loadConfig: a bad value is one line naming the variable and what it expected', () => {
  it.each([
    ['PORT', '65536', 'must be a TCP port (0-65535), got "65536"'],
    ['PORT', 'http', 'must be a TCP port (0-65535), got "http"'],
    ['STORE_URL', 'mysql://nope', 'must be pglite://<dir> or postgres://…, got "mysql://nope"'],
    ['STORE_URL', 'postgres://db/paygate?sslmode=require', REFUSED_MODE('require')],
    ['STORE_URL', 'postgres://db/paygate?sslmode=verify-ca', REFUSED_MODE('verify-ca')],
    ['STORE_URL', 'postgres://db/paygate?sslmode=prefer', REFUSED_MODE('prefer')],
    ['STORE_URL', 'postgres://db/paygate?sslmode=no-verify', REFUSED_MODE('no-verify')],
    [
      'STORE_URL',
      'postgres://db/paygate?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt',
      'has sslrootcert=/nonexistent/ca.crt: cannot read /nonexistent/ca.crt: ENOENT',
    ],
    [
      'STORE_URL',
      'postgres://db/paygate?sslmode=verify-full&sslcert=/nonexistent/tls.crt',
      'needs sslcert and sslkey together (a client certificate and its key)',
    ],
    ['EVENT_STORE_URL', 'http://kdb', 'must be kurrentdb://… or esdb://…, got "http://kdb"'],
    [
      'BROKER_URL',
      'amqp://rabbit',
      'must be inproc://, kafka://host:port[,host:port] or kafkas://host:port[,host:port], got "amqp://rabbit"',
    ],
    [
      'BROKER_URL',
      'kafkas://paygate:hunter2@k1:9093',
      'must not hold credentials: set KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    ],
    [
      'KAFKA_SASL_MECHANISM',
      'SCRAM-SHA-512',
      'must be one of plain, scram-sha-256, scram-sha-512, got "SCRAM-SHA-512"',
    ],
    ['KAFKA_SASL_MECHANISM', 'gssapi', 'must be one of plain, scram-sha-256, scram-sha-512, got "gssapi"'],
    ['MAX_BODY_BYTES', '64k', 'must be a positive whole number, got "64k"'],
    ['MAX_JSON_DEPTH', '0', 'must be a positive whole number, got "0"'],
    ['LOG_LEVEL', 'fatal', 'must be one of debug, info, warn, error, got "fatal"'],
    ['CONFIRMATION_TIMEOUT_MS', '30m', 'must be a whole number of milliseconds, got "30m"'],
    ['PROMPT_TIMEOUT_MS', '-1', 'must be a whole number of milliseconds, got "-1"'],
    ['CHECKOUT_TIMEOUT_MS', '1.5', 'must be a whole number of milliseconds, got "1.5"'],
    ['PROVIDER_STATUS_POLL_MS', '1e3', 'must be a whole number of milliseconds, got "1e3"'],
    ['TIMER_TICK_MS', '99999999999999999999', 'must be a whole number of milliseconds, got "99999999999999999999"'],
    ['PROVIDER_CALLBACK_URL', 'collections:3001', 'must be an http(s) URL, got "collections:3001"'],
    ['CHECKOUT_RETURN_URL', 'ftp://gateway', 'must be an http(s) URL, got "ftp://gateway"'],
    ['PAYMENT_RETRY_ATTEMPTS', '0', 'must be a positive whole number, got "0"'],
    ['PAYMENT_RETRY_BASE_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['MOMO_API_URL', 'http://momo example', 'must be an http(s) URL, got "http://momo example"'],
    ['CARD_API_URL', 'card.example', 'must be an http(s) URL, got "card.example"'],
    ['PROVIDER_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['CALLBACK_TIMEOUT_MS', '10s', 'must be a whole number of milliseconds, got "10s"'],
    ['CALLBACK_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['CALLBACK_RETRY_SCHEDULE', '0s,,1m', NOT_A_SCHEDULE('0s,,1m')],
    ['CALLBACK_RETRY_SCHEDULE', '10 minutes', NOT_A_SCHEDULE('10 minutes')],
    ['CALLBACK_RETRY_SCHEDULE', '-5s', NOT_A_SCHEDULE('-5s')],
    ['CALLBACK_RETRY_SCHEDULE', '1.5s', NOT_A_SCHEDULE('1.5s')],
    ['ALLOW_PRIVATE_CALLBACKS', 'yes', 'must be "true" or "false", got "yes"'],
    ['CALLBACK_CONCURRENCY_PER_HOST', '0', 'must be a positive whole number, got "0"'],
    ['CALLBACK_CONCURRENCY_PER_HOST', '2.5', 'must be a positive whole number, got "2.5"'],
    ['CALLBACK_MAX_IN_FLIGHT', '0', 'must be a positive whole number, got "0"'],
    ['DISPATCH_TICK_MS', 'fast', 'must be a whole number of milliseconds, got "fast"'],
    ['ADMIN_TOKEN', 'short-token', 'must be at least 16 characters'],
    ['METRICS_TOKEN', 'short-token', 'must be at least 16 characters'],
    ['MASTER_KEY', 'not-a-key', 'must be 32 bytes as 64 hex characters or base64'],
    ['MASTER_KEY', '0f'.repeat(31), 'must be 32 bytes as 64 hex characters or base64'],
    ['SANDBOX_LATENCY_MS', 'slow', 'must be a whole number of milliseconds, got "slow"'],
    ['SANDBOX_PUBLIC_URL', 'sandbox.example', 'must be an http(s) URL, got "sandbox.example"'],
    ['BILLER_API_URL', 'biller.example', 'must be an http(s) URL, got "biller.example"'],
    ['TRUST_PROXY', 'true', NOT_A_PROXY_SETTING('true')],
    ['TRUST_PROXY', '10.0.0.0/33', NOT_A_PROXY_SETTING('10.0.0.0/33')],
    ['TRUST_PROXY', 'proxy.internal', NOT_A_PROXY_SETTING('proxy.internal')],
    ['RATE_LIMIT_ENABLED', 'off', 'must be "true" or "false", got "off"'],
    ['RATE_LIMIT_MERCHANT_PER_SECOND', '0', 'must be a positive number such as 0.5 or 50, got "0"'],
    ['RATE_LIMIT_MERCHANT_PER_SECOND', '-1', 'must be a positive number such as 0.5 or 50, got "-1"'],
    ['RATE_LIMIT_PUBLIC_PER_SECOND', '1e3', 'must be a positive number such as 0.5 or 50, got "1e3"'],
    ['RATE_LIMIT_PROVIDER_BURST', '0', 'must be a positive whole number, got "0"'],
    ['RATE_LIMIT_MERCHANT_BURST', '1.5', 'must be a positive whole number, got "1.5"'],
    ['HTTP_REQUEST_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['HTTP_HEADERS_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['SHUTDOWN_TIMEOUT_MS', '0', 'must be at least 1 millisecond, got "0"'],
    ['SHUTDOWN_DELAY_MS', '1s', 'must be a whole number of milliseconds, got "1s"'],
    [
      'COLLECTIONS_COMMANDS_URL',
      'grpc://collections:50051',
      'must be tcp://host:port[,host:port], got "grpc://collections:50051"',
    ],
    ['COMMANDS_TLS_DIR', '/nonexistent/paygate-certs', 'must be a folder, and "/nonexistent/paygate-certs" is not one'],
  ])('%s=%j', (variable, value, problem) => {
    const error = failure({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(`invalid configuration: ${variable} ${problem}`);
  });

  it('refuses a header deadline later than the request deadline', () => {
    expect(failure({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' }).message).toBe(
      'invalid configuration: HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS (5000), got "6000"',
    );
  });

  it('refuses a shutdown delay that leaves no time to drain', () => {
    expect(failure({ SHUTDOWN_TIMEOUT_MS: '5000', SHUTDOWN_DELAY_MS: '5000' }).message).toBe(
      'invalid configuration: SHUTDOWN_DELAY_MS must be less than SHUTDOWN_TIMEOUT_MS (5000), got "5000"',
    );
  });

  describe('Kafka TLS and SASL', () => {
    const SASL = {
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'paygate',
      KAFKA_SASL_PASSWORD: 'hunter2-kafka',
    };

    it.each([
      [
        { BROKER_URL: 'kafka://k1:9092', KAFKA_TLS_CA_FILE: CA_FILE },
        'KAFKA_TLS_CA_FILE is set but BROKER_URL is not kafkas:// (TLS)',
      ],
      [
        { BROKER_URL: 'kafkas://k1:9093', KAFKA_SASL_USERNAME: 'paygate' },
        'KAFKA_SASL_MECHANISM must be set (plain, scram-sha-256 or scram-sha-512) when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is',
      ],
      [
        { BROKER_URL: 'kafkas://k1:9093', KAFKA_SASL_PASSWORD: 'hunter2-kafka' },
        'KAFKA_SASL_MECHANISM must be set (plain, scram-sha-256 or scram-sha-512) when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is',
      ],
      [{ ...SASL, BROKER_URL: 'inproc://' }, 'KAFKA_SASL_MECHANISM is set but BROKER_URL is not kafka:// or kafkas://'],
      [
        { ...SASL, BROKER_URL: 'kafkas://k1:9093', KAFKA_SASL_USERNAME: '' },
        'KAFKA_SASL_USERNAME must be set with KAFKA_SASL_MECHANISM=scram-sha-512',
      ],
      [
        { ...SASL, BROKER_URL: 'kafkas://k1:9093', KAFKA_SASL_PASSWORD: '' },
        'KAFKA_SASL_PASSWORD must be set with KAFKA_SASL_MECHANISM=scram-sha-512',
      ],
      [
        { ...SASL, BROKER_URL: 'kafka://k1:9092', KAFKA_SASL_MECHANISM: 'plain' },
        'KAFKA_SASL_MECHANISM plain sends the password as it is: needs BROKER_URL=kafkas:// (TLS)',
      ],
    ])('refuses %j', (env, problem) => {
      const error = failure(env);
      expect(error.message).toBe(`invalid configuration: ${problem}`);
      expect(error.message).not.toContain('hunter2');
    });

    it('takes SCRAM over plaintext (the password is proven, not sent) and TLS without SASL', () => {
      expect(loadConfig({ ...SASL, BROKER_URL: 'kafka://k1:9092' }).platform.kafka.saslMechanism).toBe('scram-sha-512');
      expect(loadConfig({ BROKER_URL: 'kafkas://k1:9093' }).platform.kafka).toEqual({
        tlsCa: undefined,
        saslMechanism: undefined,
        saslUsername: undefined,
        saslPassword: undefined,
      });
    });

    it('names a CA file that is missing or holds no certificate', () => {
      expect(failure({ BROKER_URL: 'kafkas://k1:9093', KAFKA_TLS_CA_FILE: join(CA_DIR, 'missing.crt') }).message).toBe(
        `invalid configuration: KAFKA_TLS_CA_FILE cannot read ${join(CA_DIR, 'missing.crt')}: ENOENT`,
      );
      const notPem = join(CA_DIR, 'not-pem.crt');
      writeFileSync(notPem, 'hunter2');
      const error = failure({ BROKER_URL: 'kafkas://k1:9093', KAFKA_TLS_CA_FILE: notPem });
      expect(error.message).toBe(
        `invalid configuration: KAFKA_TLS_CA_FILE ${notPem} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      );
    });
  });

  describe('STORE_URL TLS parameters', () => {
    it('takes sslmode=verify-full with a readable CA file, and sslmode=disable', () => {
      const url = `postgres://paygate:pw@db:5432/paygate?schema=s&sslmode=verify-full&sslrootcert=${CA_FILE}`;
      expect(loadConfig({ STORE_URL: url }).platform.storeUrl).toBe(url);
      expect(loadConfig({ STORE_URL: 'postgres://db/paygate?sslmode=disable' }).platform.storeUrl).toBe(
        'postgres://db/paygate?sslmode=disable',
      );
    });

    it('never prints the password of a URL it refuses', () => {
      const error = failure({ STORE_URL: 'postgres://paygate:hunter2@db/paygate?sslmode=require' });
      expect(error.message).not.toContain('hunter2');
    });
  });

  it('names the first bad variable in schema order', () => {
    expect(failure({ LOG_LEVEL: 'loud', STORE_URL: 'mysql://nope', MASTER_KEY: 'bad' }).variable).toBe('STORE_URL');
  });

  it('never prints a URL credential', () => {
    const error = failure({ STORE_URL: 'mysql://paygate:hunter2@db/paygate' });
    expect(error.message).toBe(
      'invalid configuration: STORE_URL must be pglite://<dir> or postgres://…, got "mysql://***@db/paygate"',
    );
    expect(failure({ MOMO_API_URL: 'momo://user:hunter2@momo' }).message).not.toContain('hunter2');
    expect(failure({ STORE_URL: 'mysql://db/paygate?user=paygate&password=hunter2' }).message).toBe(
      'invalid configuration: STORE_URL must be pglite://<dir> or postgres://…, got "mysql://db/paygate?user=paygate&password=***"',
    );
  });

  it.each(['MASTER_KEY', 'ADMIN_TOKEN', 'METRICS_TOKEN', 'KAFKA_SASL_PASSWORD'])(
    'never prints the value of %s',
    (variable) => {
      const value = 'hunter2-secret';
      expect(failure({ [variable]: value }).message).not.toContain(value);
    },
  );

  describe('PROVIDER_CATALOGUE_FILE', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'paygate-config-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('names the file it cannot read', () => {
      const path = join(dir, 'missing.json');
      expect(failure({ PROVIDER_CATALOGUE_FILE: path }).message).toMatch(
        new RegExp(`^invalid configuration: PROVIDER_CATALOGUE_FILE cannot read JSON from ${path}: ENOENT`),
      );
    });

    it('names the file that is not JSON', () => {
      const path = join(dir, 'broken.json');
      writeFileSync(path, '{ "providers": [');
      expect(failure({ PROVIDER_CATALOGUE_FILE: path }).message).toMatch(
        new RegExp(`^invalid configuration: PROVIDER_CATALOGUE_FILE cannot read JSON from ${path}: `),
      );
    });

    it('names the file and the bad entry', () => {
      const path = join(dir, 'empty.json');
      writeFileSync(path, '{ "providers": [] }');
      expect(failure({ PROVIDER_CATALOGUE_FILE: path }).message).toBe(
        `invalid configuration: PROVIDER_CATALOGUE_FILE ${path}: providers must be a non-empty array`,
      );
    });

    it.each([
      ['{ "providers": [] }', 'billers must be an array'],
      [
        '{ "billers": [{ "biller_code": "ura_prn_ug", "biller_name": "URA", "currency": "UGX", "country_code": "UG", "connector": "momo", "reference_pattern": "[0-9]{13}" }] }',
        'billers[0].connector must be one of biller',
      ],
      [
        '{ "billers": [{ "biller_code": "ura_prn_ug", "biller_name": "URA", "currency": "XYZ", "country_code": "UG", "reference_pattern": "[0-9]{13}" }] }',
        'billers[0].currency must be a supported currency',
      ],
      [
        '{ "billers": [{ "biller_code": "ura_prn_ug", "biller_name": "URA", "currency": "UGX", "country_code": "UG", "reference_pattern": "[0-9" }] }',
        'billers[0].reference_pattern must be a regular expression',
      ],
    ])('BILLER_CATALOGUE_FILE %s names the bad entry', (json, problem) => {
      const path = join(dir, 'billers.json');
      writeFileSync(path, json);
      expect(failure({ BILLER_CATALOGUE_FILE: path }).message).toBe(
        `invalid configuration: BILLER_CATALOGUE_FILE ${path}: ${problem}`,
      );
    });
  });
});

describe('the loaded configuration', () => {
  const config = loadConfig({ MASTER_KEY, ADMIN_TOKEN, MOMO_API_KEY: 'momo-live-key' });

  it('is frozen all the way down', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.platform)).toBe(true);
    expect(Object.isFrozen(config.connectors.momo)).toBe(true);
    expect(Object.isFrozen(config.delivery.retrySchedule)).toBe(true);
    expect(() => ((config.platform as { port: number }).port = 1)).toThrow(TypeError);
    expect(() => (config.delivery.retrySchedule as number[]).push(1)).toThrow(TypeError);
    const provider = config.catalogue.get('mtn_momo_ug')!;
    expect(Object.isFrozen(provider)).toBe(true);
    expect(Object.isFrozen(provider.fee)).toBe(true);
    expect(() => provider.prefixes.push('70')).toThrow(TypeError);
    const catalogue = config.catalogue as Map<string, typeof provider>;
    expect(() => catalogue.set('mine', provider)).toThrow(TypeError);
    expect(() => catalogue.delete('mtn_momo_ug')).toThrow(TypeError);
    expect(() => catalogue.clear()).toThrow(TypeError);
    expect(config.catalogue.size).toBeGreaterThan(0);
  });

  it('shows no secret when printed, logged or serialised', () => {
    const printed = [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      String(config.merchants.masterKey),
      `${config.gateway.adminToken}`,
    ];
    for (const text of printed) {
      for (const secret of [MASTER_KEY, ADMIN_TOKEN, 'momo-live-key', 'sandbox-card-secret'])
        expect(text).not.toContain(secret);
    }
    expect(JSON.stringify(config.merchants)).toBe('{"masterKey":"[secret]"}');
  });

  it('marks every credential variable as a secret', () => {
    const secrets = settingsOf()
      .filter((setting) => setting.secret)
      .map((setting) => setting.variable);
    expect(secrets).toEqual([
      'KAFKA_SASL_PASSWORD',
      'METRICS_TOKEN',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'MOMO_API_USER',
      'MOMO_API_KEY',
      'MOMO_SUBSCRIPTION_KEY',
      'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY',
      'CARD_SECRET_KEY',
      'BILLER_API_KEY',
      'ADMIN_TOKEN',
      'MASTER_KEY',
    ]);
  });
});

describe('standalone helpers', () => {
  it('fills in only what is unset or empty', () => {
    expect(withDefaults({ A: 'set', B: '', D: 'kept' }, { A: 'default', B: 'default', C: 'default' })).toEqual({
      A: 'set',
      B: 'default',
      C: 'default',
      D: 'kept',
    });
  });

  it('takes the standalone defaults from the schema', () => {
    expect(standaloneDefaults()).toEqual({
      HOST: '127.0.0.1',
      ALLOW_PRIVATE_CALLBACKS: 'true',
      SHUTDOWN_DELAY_MS: '0',
    });
    expect(loadConfig(withDefaults({}, standaloneDefaults())).delivery.allowPrivate).toBe(true);
    expect(
      loadConfig(withDefaults({ ALLOW_PRIVATE_CALLBACKS: 'false' }, standaloneDefaults())).delivery.allowPrivate,
    ).toBe(false);
  });

  it('reads one setting before the configuration is loaded', () => {
    expect(readSetting(CONFIG_SCHEMA.standalone.dataDir, {})).toBe('./data');
    expect(readSetting(CONFIG_SCHEMA.standalone.dataDir, { DATA_DIR: '/tmp/pg' })).toBe('/tmp/pg');
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['0', 0],
    ['750', 750],
    ['750ms', 750],
    ['10s', 10_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    [' 2s ', 2_000],
  ])('%j is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', 's', '1d', '1 s', '1e3', '99999999999999999999h'])('%j is malformed', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );
});
