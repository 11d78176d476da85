import { parseBillerCatalogue, parseProviderCatalogue } from '@paygate/contracts';
import { LOG_LEVELS } from '@paygate/logging';
import {
  boolean,
  credential,
  directory,
  driverUrl,
  durationList,
  httpBaseUrl,
  jsonFile,
  listenAddress,
  milliseconds,
  oneOf,
  optionalOneOf,
  optionalSecret,
  optionalText,
  pemCertificatesFile,
  port,
  positiveInteger,
  positiveNumber,
  proxyTrust,
  text,
  type Setting,
} from './settings';
import { postgresTlsProblem } from './store-url';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A deployment moves sandbox money (`test`) or real money (`live`); every record it writes says which. */
export const DEPLOYMENT_MODES = ['test', 'live'] as const;
export type DeploymentMode = (typeof DEPLOYMENT_MODES)[number];

const rate = (variable: string, fallback: number, description: string) =>
  positiveNumber(variable, fallback, { type: 'requests per second (decimal)', description });

/** 32 bytes, as 64 hex characters or base64; undefined otherwise. */
export function decodeMasterKey(encoded: string): Buffer | undefined {
  const key = /^[0-9a-fA-F]{64}$/.test(encoded) ? Buffer.from(encoded, 'hex') : Buffer.from(encoded, 'base64');
  return key.length === 32 ? key : undefined;
}

export const MASTER_KEY_EXPECTED = '32 bytes as 64 hex characters or base64';

/** tcp:// with host:port, or several host:port separated by commas (instances on one machine). */
const COMMAND_ADDRESS =
  /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[^\s:,[\]/]+):\d{1,5}(,(\[[0-9a-fA-F:.]+\]|[^\s:,[\]/]+):\d{1,5})*$/;

/** Where a serving app listens, and so where the others find it by its deployable's name (docker-compose, DNS). */
const COMMANDS_PORT = 7000;

const commandsUrl = (variable: string, app: string) =>
  driverUrl(variable, `tcp://${app}:${COMMANDS_PORT}`, {
    pattern: COMMAND_ADDRESS,
    expected: 'tcp://host:port[,host:port]',
    type: 'URL: `tcp://host:port[,host:port]`',
    description: `with BROKER_URL=kafka://, where the gateway sends ${app}'s commands (its COMMANDS_LISTEN_URL): one DNS name, whose every address gets commands in turn, or a list of IP:port`,
  });

/**
 * Every environment variable Paygate reads, declared once: its type, default and one-line
 * meaning. The sections are the typed configuration's (Config) shape; loadConfig parses all of
 * them once at start. README's configuration table is generated from this (readme-table.ts).
 * The order is the order of checks: the first bad variable stops the start.
 */
export const CONFIG_SCHEMA = {
  mode: oneOf('MODE', DEPLOYMENT_MODES, 'test', {
    description:
      'what the deployment moves: `test` (sandbox money, `pk_test_` keys) or `live` (real money, `pk_live_` keys; refuses to start with anything of the sandbox, see docs/operations.md)',
  }),
  platform: {
    port: port('PORT', 3000, { description: 'HTTP port (`0`: any free port)' }),
    host: listenAddress('HOST', '0.0.0.0', {
      standaloneDefault: '127.0.0.1',
      description:
        'address the HTTP port listens on: every interface by default, loopback only in standalone (`npm start`); `0.0.0.0` opens standalone to the network',
    }),
    storeUrl: driverUrl('STORE_URL', 'pglite://./data/pglite', {
      pattern: /^(pglite:\/\/.+|postgres(ql)?:\/\/.+)$/,
      expected: 'pglite://<dir> or postgres://…',
      type: 'URL: `pglite://…`, `postgres://…`',
      description:
        'SQL store: `pglite://<dir>` (or `pglite://memory`) embedded, or `postgres://…` (`?schema=name` optional; TLS: `?sslmode=verify-full&sslrootcert=<CA file>`, see docs/operations.md)',
      check: postgresTlsProblem,
    }),
    storePoolSize: positiveInteger('STORE_POOL_SIZE', 20, {
      description:
        "PostgreSQL connections one process may hold (PGlite has one); all processes together must stay under the server's max_connections",
    }),
    eventStoreUrl: driverUrl('EVENT_STORE_URL', undefined, {
      pattern: /^(kurrentdb|kdb|esdb|eventstore)(\+discover)?:\/\/.+$/,
      expected: 'kurrentdb://… or esdb://…',
      type: 'URL: `kurrentdb://…`, `esdb://…`',
      description: 'event store; unset: events live in STORE_URL',
    }),
    brokerUrl: driverUrl('BROKER_URL', 'inproc://', {
      pattern: /^(inproc:\/\/|kafkas?:\/\/[^\s]+)$/,
      expected: 'inproc://, kafka://host:port[,host:port] or kafkas://host:port[,host:port]',
      type: 'URL: `inproc://`, `kafka://host:port[,host:port]`, `kafkas://…`',
      description:
        'message broker: in-process (one process), or Kafka: `kafka://` plaintext, `kafkas://` TLS (the broker certificate and its name checked)',
      // Credentials in a URL end up in process lists, shell history and manifests.
      check: (raw) =>
        /^kafkas?:\/\/[^/]*@/.test(raw)
          ? 'must not hold credentials: set KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD'
          : undefined,
    }),
    kafka: {
      tlsCa: pemCertificatesFile('KAFKA_TLS_CA_FILE', {
        unsetMeans: "unset: the system's public CAs",
        description:
          "with BROKER_URL=kafkas://, the CA certificates that sign the brokers' certificates (PEM; read at start)",
      }),
      saslMechanism: optionalOneOf('KAFKA_SASL_MECHANISM', ['plain', 'scram-sha-256', 'scram-sha-512'], {
        unsetMeans: 'unset: no SASL',
        description:
          'SASL authentication to Kafka, with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD; `plain` only over `kafkas://`',
      }),
      saslUsername: optionalText('KAFKA_SASL_USERNAME', { unsetMeans: 'unset', description: 'Kafka SASL user' }),
      saslPassword: optionalSecret('KAFKA_SASL_PASSWORD', {
        type: 'text, secret',
        unsetMeans: 'unset',
        description: 'Kafka SASL password',
      }),
    },
    commandsListenUrl: driverUrl('COMMANDS_LISTEN_URL', `tcp://0.0.0.0:${COMMANDS_PORT}`, {
      pattern: COMMAND_ADDRESS,
      expected: 'tcp://host:port',
      type: 'URL: `tcp://host:port`',
      description:
        'with BROKER_URL=kafka://, where a serving app (collections, service-payments, webhook-dispatcher) takes commands (mutual TLS, COMMANDS_TLS_DIR)',
    }),
    collectionsCommandsUrl: commandsUrl('COLLECTIONS_COMMANDS_URL', 'collections'),
    paymentsCommandsUrl: commandsUrl('PAYMENTS_COMMANDS_URL', 'service-payments'),
    webhooksCommandsUrl: commandsUrl('WEBHOOKS_COMMANDS_URL', 'webhook-dispatcher'),
    commandsTlsDir: directory('COMMANDS_TLS_DIR', {
      unsetMeans: 'unset (required with Kafka)',
      description:
        "with Kafka (distributed), the app's own folder holding `ca.crt`, `tls.crt` and `tls.key` (a Kubernetes TLS Secret's layout; `scripts/certs.sh --apps` makes one per app): its certificate names the app (`spiffe://paygate/<app>`); a service takes commands only from the gateway's certificate, and the gateway sends only to the serving app's",
    }),
    metricsToken: optionalSecret('METRICS_TOKEN', {
      type: 'text (16+ characters), secret',
      unsetMeans: 'unset: `GET /metrics` answers anyone (keep it off public networks)',
      description:
        'bearer token `GET /metrics` asks for (Prometheus `authorization: {credentials}`); without it, or with another, 401',
      check: (raw) => (raw.length < 16 ? 'must be at least 16 characters' : undefined),
    }),
    trustProxy: proxyTrust('TRUST_PROXY', {
      description:
        "proxies in front of the apps whose X-Forwarded-For gives the client's address (per-address rate limits); unset: the connection's peer",
    }),
    commandTimeoutMs: milliseconds('COMMAND_TIMEOUT_MS', 10_000, {
      min: 1,
      description:
        "how long a gateway waits for the owning service's answer to a command; then it answers 503 with Retry-After (repeating the request is safe)",
    }),
    migrateOnStart: boolean('MIGRATE_ON_START', true, {
      description:
        "apply the database migrations this app's tables need while it starts; `false`: only check they were applied (by `paygate migrate`) and refuse to start otherwise",
    }),
  },
  input: {
    maxBodyBytes: positiveInteger('MAX_BODY_BYTES', 64 * 1024, {
      description: 'largest request body accepted, in bytes; a larger one is answered 413',
    }),
    maxJsonDepth: positiveInteger('MAX_JSON_DEPTH', 32, {
      description:
        'deepest nesting of objects and arrays in a JSON body; a deeper one is answered 400 before it is parsed',
    }),
  },
  http: {
    requestTimeoutMs: milliseconds('HTTP_REQUEST_TIMEOUT_MS', 20_000, {
      min: 1,
      description:
        'a request whose headers and body have not all arrived this long after it began is answered 408 and its connection closed (a handler may take longer)',
    }),
    headersTimeoutMs: milliseconds('HTTP_HEADERS_TIMEOUT_MS', 10_000, {
      min: 1,
      description:
        'a request whose headers have not all arrived this long after their first byte is answered 408 and its connection closed; at most HTTP_REQUEST_TIMEOUT_MS',
    }),
    keepAliveTimeoutMs: milliseconds('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, {
      min: 1,
      description:
        'an idle keep-alive connection is closed after this; longer than the 60 s idle timeout of common load balancers, so they close first',
    }),
  },
  shutdown: {
    timeoutMs: milliseconds('SHUTDOWN_TIMEOUT_MS', 15_000, {
      min: 1,
      description:
        'after SIGTERM the process exits within this, abandoning (and logging) whatever has not finished: exit code 1',
    }),
    delayMs: milliseconds('SHUTDOWN_DELAY_MS', 5_000, {
      standaloneDefault: '0',
      description:
        'after SIGTERM, /health/ready answers 503 for this long while requests are still served, so load balancers stop sending before the listener closes; part of SHUTDOWN_TIMEOUT_MS (standalone has no balancer in front)',
    }),
  },
  logging: {
    level: oneOf('LOG_LEVEL', LOG_LEVELS, 'info', { description: 'least severe level written to the JSON log' }),
  },
  tracing: {
    endpoint: httpBaseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', {
      unsetMeans: 'unset: no tracing (unless OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set)',
      description:
        'OpenTelemetry collector base URL: set, the app exports its spans over OTLP/HTTP to `<this>/v1/traces` (docs/operations.md, "Tracing")',
    }),
    tracesEndpoint: httpBaseUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', {
      unsetMeans: 'unset: from OTEL_EXPORTER_OTLP_ENDPOINT',
      description: 'full OTLP/HTTP URL spans are sent to, taken as it is; set, tracing is on',
    }),
    protocol: oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', ['http/protobuf', 'http/json'], 'http/protobuf', {
      description: 'the OTLP/HTTP encoding of exported spans (gRPC is not supported)',
    }),
    headers: optionalSecret('OTEL_EXPORTER_OTLP_HEADERS', {
      type: 'text (`key=value,key=value`), secret',
      unsetMeans: 'unset',
      description: "headers sent with every export (a collector's credentials), values percent-encoded",
      check: (raw) =>
        raw.split(',').every((pair) => /^[^=\s]+=.*$/.test(pair.trim()))
          ? undefined
          : 'must be key=value pairs separated by commas',
    }),
    serviceName: optionalText('OTEL_SERVICE_NAME', {
      unsetMeans: "unset: the app's name (`api-gateway`, `collections`, ...)",
      description: "the `service.name` of this app's spans",
    }),
  },
  catalogue: jsonFile('PROVIDER_CATALOGUE_FILE', 'config/providers.json', parseProviderCatalogue, {
    type: 'path to a JSON file',
    description: 'payment providers: limits, msisdn prefixes, fee schedules (read at start)',
  }),
  billers: jsonFile('BILLER_CATALOGUE_FILE', 'config/billers.json', parseBillerCatalogue, {
    type: 'path to a JSON file',
    description: 'billers Paygate pays bills at (URA PRNs): currency, connector, bill number form (read at start)',
  }),
  collections: {
    confirmationTimeoutMs: milliseconds('CONFIRMATION_TIMEOUT_MS', 30 * MINUTE, {
      description: 'an unconfirmed collection is CANCELLED after this',
    }),
    promptTimeoutMs: milliseconds('PROMPT_TIMEOUT_MS', 5 * MINUTE, {
      description: 'an unanswered PIN prompt is CANCELLED after this',
    }),
    checkoutTimeoutMs: milliseconds('CHECKOUT_TIMEOUT_MS', 30 * MINUTE, {
      description: 'an unused card checkout is CANCELLED after this',
    }),
    statusPollMs: milliseconds('PROVIDER_STATUS_POLL_MS', MINUTE, {
      description: 'provider status polling while a result is awaited (fallback for lost callbacks)',
    }),
    timerTickMs: milliseconds('TIMER_TICK_MS', 10_000, {
      description:
        'longest wait before due collection timers are looked for unprompted (a fallback: scheduling notifies the worker)',
    }),
    providerCallbackUrl: httpBaseUrl('PROVIDER_CALLBACK_URL', {
      unsetMeans: "this process's URL",
      description:
        'public base URL of the collections service, for provider callbacks; the sandbox calls back there even on a private address',
    }),
    checkoutReturnUrl: httpBaseUrl('CHECKOUT_RETURN_URL', {
      unsetMeans: "this process's URL",
      description:
        "public base URL of the api-gateway: where the card checkout returns the customer, and the server named by the OpenAPI document served at /docs (unset there: the request's host)",
    }),
  },
  payments: {
    billerCode: text('PRN_BILLER_CODE', 'ura_prn_ug', {
      description: 'biller_code (in BILLER_CATALOGUE_FILE) that validates and is paid the PRNs of collect-for-payment',
    }),
    retryAttempts: positiveInteger('PAYMENT_RETRY_ATTEMPTS', 8, {
      description:
        'attempts at paying a PRN while the biller is unavailable; after the last the payment fails and the funds stay in the wallet',
    }),
    retryBaseMs: milliseconds('PAYMENT_RETRY_BASE_MS', 30_000, {
      min: 1,
      description: 'delay after the first failed PRN payment attempt; doubles with each further attempt',
    }),
    retryMaxDelayMs: milliseconds('PAYMENT_RETRY_MAX_DELAY_MS', 15 * MINUTE, {
      min: 1,
      description: 'longest delay between two PRN payment attempts',
    }),
    statusPollMs: milliseconds('PAYMENT_STATUS_POLL_MS', MINUTE, {
      min: 1,
      description:
        'a PRN payment requested but not yet answered (a crash, or PENDING at the biller) is sent again with its idempotency key after this',
    }),
    timerTickMs: milliseconds('PAYMENT_TIMER_TICK_MS', 10_000, {
      description:
        'longest wait before due PRN payment timers are looked for unprompted (a fallback: scheduling notifies the worker)',
    }),
  },
  disbursements: {
    statusPollMs: milliseconds('MONEY_OUT_STATUS_POLL_MS', 20_000, {
      min: 1,
      description:
        'a refund or payout sent (or whose sending timed out) is asked about at its provider with the same reference after this, and again after each unanswered or pending status',
    }),
    attentionAfterMs: milliseconds('MONEY_OUT_ATTENTION_AFTER_MS', HOUR, {
      min: 1,
      description:
        'a refund or payout its provider has not confirmed after this is listed for operators (needs_attention); it is still asked about, and never failed without the provider',
    }),
    approvalTimeoutMs: milliseconds('PAYOUT_APPROVAL_TIMEOUT_MS', 24 * HOUR, {
      min: 1,
      description:
        "a payout above its merchant's approval threshold not approved after this is cancelled and its hold released",
    }),
    reversalWatchMs: milliseconds('PAYOUT_REVERSAL_WATCH_MS', 10 * MINUTE, {
      description:
        'a completed payout is still asked about at each status poll for this long, to see a reversal its provider may not call back about (a callback asks again at any time)',
    }),
    timerTickMs: milliseconds('MONEY_OUT_TIMER_TICK_MS', 10_000, {
      description:
        'longest wait before due refund and payout timers are looked for unprompted (a fallback: scheduling notifies the worker)',
    }),
    providerCallbackUrl: httpBaseUrl('MONEY_OUT_CALLBACK_URL', {
      unsetMeans: "this process's URL",
      description:
        'public base URL providers call back with refund and payout results (/money-out-callbacks/...): the service-payments app',
    }),
  },
  connectors: {
    momo: {
      apiUrl: httpBaseUrl('MOMO_API_URL', {
        unsetMeans: "the sandbox at this process's URL (`/sandbox/momo`)",
        description:
          'mobile money provider API (MTN MoMo shape): the Collection product under `/collection`, Disbursement (payouts, refunds) under `/disbursement`',
      }),
      apiUser: credential('MOMO_API_USER', 'sandbox-user', { description: 'mobile money API user' }),
      apiKey: credential('MOMO_API_KEY', 'sandbox-key', { description: 'mobile money API key' }),
      subscriptionKey: credential('MOMO_SUBSCRIPTION_KEY', 'sandbox-subscription-key', {
        description: 'mobile money subscription key (Ocp-Apim-Subscription-Key) of the Collection product',
      }),
      disbursementSubscriptionKey: optionalSecret('MOMO_DISBURSEMENT_SUBSCRIPTION_KEY', {
        type: 'text, secret',
        unsetMeans: 'unset: MOMO_SUBSCRIPTION_KEY',
        description:
          'mobile money subscription key of the Disbursement product (payouts, refunds): MTN issues one per product',
      }),
      targetEnvironment: text('MOMO_TARGET_ENVIRONMENT', 'sandbox', {
        description: 'mobile money X-Target-Environment',
      }),
    },
    card: {
      apiUrl: httpBaseUrl('CARD_API_URL', {
        unsetMeans: "the sandbox at this process's URL (`/sandbox/card`)",
        description: 'card checkout provider API',
      }),
      secretKey: credential('CARD_SECRET_KEY', 'sandbox-card-secret', { description: 'card provider secret key' }),
    },
    biller: {
      apiUrl: httpBaseUrl('BILLER_API_URL', {
        unsetMeans: "the sandbox at this process's URL (`/sandbox/biller`)",
        description: 'biller API: PRN look-up, payment, payment status',
      }),
      apiKey: credential('BILLER_API_KEY', 'sandbox-biller-key', {
        description: 'biller API key (X-Api-Key); the sandbox biller accepts this one only',
      }),
    },
    timeoutMs: milliseconds('PROVIDER_TIMEOUT_MS', 10_000, { min: 1, description: 'one provider API request' }),
  },
  delivery: {
    timeoutMs: milliseconds('CALLBACK_TIMEOUT_MS', 10_000, {
      min: 1,
      description: 'one merchant callback attempt, connect to response',
    }),
    retrySchedule: durationList('CALLBACK_RETRY_SCHEDULE', '0s,10s,1m,5m,30m,2h,5h,10h,14h,20h,24h', {
      description: 'delay before each callback attempt; after the last, the callback is abandoned',
    }),
    allowPrivate: boolean('ALLOW_PRIVATE_CALLBACKS', false, {
      standaloneDefault: 'true',
      description:
        'allow `http` callback URLs and callback targets (merchant and sandbox) on loopback, private-use, CGNAT and unique-local addresses and localhost names; link-local, metadata and other special-purpose addresses stay refused',
    }),
    perHostConcurrency: positiveInteger('CALLBACK_CONCURRENCY_PER_HOST', 4, {
      description: 'callback attempts in flight per target host, across dispatchers',
    }),
    maxInFlight: positiveInteger('CALLBACK_MAX_IN_FLIGHT', 256, {
      description:
        'callback attempts in flight per dispatcher process, all hosts together; a slow host holds at most CALLBACK_CONCURRENCY_PER_HOST of them',
    }),
    tickMs: milliseconds('DISPATCH_TICK_MS', 10_000, {
      min: 1,
      description:
        'longest wait before a dispatcher looks for due callbacks unprompted (a fallback: queueing a callback notifies it)',
    }),
  },
  gateway: {
    adminToken: optionalSecret('ADMIN_TOKEN', {
      type: 'text (16+ characters), secret',
      unsetMeans: 'unset: the admin API refuses (standalone: generated into `DATA_DIR/sandbox.json`)',
      description: 'bearer token of the admin API',
      check: (raw) => (raw.length < 16 ? 'must be at least 16 characters' : undefined),
    }),
  },
  rateLimits: {
    enabled: boolean('RATE_LIMIT_ENABLED', true, {
      description: 'token-bucket rate limits on every HTTP route but health and metrics (`false` for benchmarks only)',
    }),
    merchant: {
      perSecond: rate(
        'RATE_LIMIT_MERCHANT_PER_SECOND',
        50,
        "a merchant's requests to the merchant API, per second, sustained (all gateways together)",
      ),
      burst: positiveInteger('RATE_LIMIT_MERCHANT_BURST', 100, {
        description: "a merchant's bucket: requests it may send at once before the sustained rate applies",
      }),
    },
    public: {
      perSecond: rate(
        'RATE_LIMIT_PUBLIC_PER_SECOND',
        20,
        'requests per second per source address to routes without merchant credentials (checkout pages, admin, docs) and failed merchant authentications',
      ),
      burst: positiveInteger('RATE_LIMIT_PUBLIC_BURST', 60, {
        description: "a source address's bucket on those routes",
      }),
    },
    provider: {
      perSecond: rate(
        'RATE_LIMIT_PROVIDER_PER_SECOND',
        100,
        "requests per second per source address to provider callbacks and the sandbox's provider APIs",
      ),
      burst: positiveInteger('RATE_LIMIT_PROVIDER_BURST', 300, {
        description: "a source address's bucket on provider callbacks and the sandbox's provider APIs",
      }),
    },
  },
  merchants: {
    masterKey: optionalSecret('MASTER_KEY', {
      type: `${MASTER_KEY_EXPECTED}, secret`,
      unsetMeans: 'unset (standalone: generated into `DATA_DIR/master.key`)',
      description: 'seals merchant secrets at rest; api-gateway and webhook-dispatcher refuse to start without it',
      check: (raw) => (decodeMasterKey(raw) ? undefined : `must be ${MASTER_KEY_EXPECTED}`),
    }),
  },
  sandbox: {
    latencyMs: milliseconds('SANDBOX_LATENCY_MS', 500, { description: 'simulated provider response time' }),
    unansweredHoldMs: milliseconds('SANDBOX_UNANSWERED_HOLD_MS', 15_000, {
      description:
        'how long the sandbox holds a payout or refund request it never answers (test numbers ending 0004, 0008) before dropping the connection; longer than PROVIDER_TIMEOUT_MS, so the caller times out first',
    }),
    lateCompletionMs: milliseconds('SANDBOX_LATE_COMPLETION_MS', 30_000, {
      description: 'when a payout or refund whose request went unanswered completes, found only by asking its status',
    }),
    reversalDelayMs: milliseconds('SANDBOX_REVERSAL_DELAY_MS', 10_000, {
      description: 'how long after completing a sandbox payout to a number ending 0006 is reversed',
    }),
    publicUrl: httpBaseUrl('SANDBOX_PUBLIC_URL', {
      unsetMeans: "from the request's Host",
      description: "base URL a customer's browser reaches the sandbox checkout page at",
    }),
  },
  standalone: {
    dataDir: text('DATA_DIR', './data', {
      type: 'directory',
      description: 'standalone only: where the generated MASTER_KEY and ADMIN_TOKEN (and the demo merchant) are kept',
    }),
  },
} as const;

type Node = Setting<unknown> | { readonly [key: string]: Node };

/** The typed value of a schema node: a setting's value, or a section of them. */
export type ConfigOf<S> = S extends Setting<infer T> ? T : { readonly [K in keyof S]: ConfigOf<S[K]> };

/** The whole configuration, as loadConfig returns it (deeply frozen). */
export type Config = ConfigOf<typeof CONFIG_SCHEMA>;

/** Every setting of `node`, in declaration order. */
export function settingsOf(node: Node = CONFIG_SCHEMA): Setting<unknown>[] {
  return isSetting(node) ? [node] : Object.values(node).flatMap((child) => settingsOf(child));
}

export function isSetting(node: Node): node is Setting<unknown> {
  return (
    typeof (node as Setting<unknown>).parse === 'function' && typeof (node as Setting<unknown>).variable === 'string'
  );
}

export type { Node as SchemaNode };
