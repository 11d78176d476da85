/**
 * Shared setup of the collections service specs (collections.service.*.spec.ts): the service
 * without NestJS, on an embedded PGlite event store, with fake connectors that record what they
 * are asked and answer as told, a clock the spec moves and a logger that keeps its warnings.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { collectionDecider } from '@paygate/collections-domain';
import {
  ProviderUnavailableError,
  type CollectInitiateRequest,
  type CollectOperations,
  type ProviderOutcome,
} from '@paygate/connectors';
import { parseProviderCatalogue, type CollectionRequest } from '@paygate/contracts';
import { DeciderRuntime, SqlEventStore, type EventStore } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import { NO_METRICS } from '@paygate/metrics';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { MOMO_REQUEST, type SqlEngineUnderTest } from '@paygate/testing';
import { CollectionProjection } from './collection-projection';
import { CollectionsService } from './collections.service';
import type { CollectionsConfig } from './config';
import { ReferenceRegistry } from './reference-registry';

export const CONFIG: CollectionsConfig = {
  confirmationTimeoutMs: 1_800_000,
  promptTimeoutMs: 300_000,
  checkoutTimeoutMs: 900_000,
  statusPollMs: 60_000,
  timerTickMs: 250,
  providerCallbackUrl: undefined,
  checkoutReturnUrl: undefined,
  livemode: false,
  catalogue: parseProviderCatalogue(
    JSON.parse(readFileSync(resolve(__dirname, '../../../../config/providers.json'), 'utf8')),
  ),
};
export const CALLBACK_URL = 'https://collections.paygate.test';
export const GATEWAY_URL = 'https://api.paygate.test';

/**
 * A provider's connector that answers as the spec tells it; `unreachable` makes every call fail as a network error
 * would.
 */
export class FakeCollector implements CollectOperations {
  readonly requests: CollectInitiateRequest[] = [];
  readonly queries: string[] = [];
  unreachable = false;
  outcome: ProviderOutcome = { status: 'PENDING' };
  /** MoMo fixes its reference from ours; the card protocol does not. */
  readonly providerReferenceFor?: (reference: string) => string;

  constructor(private readonly card: boolean) {
    if (!card) this.providerReferenceFor = (reference) => `momo-${reference}`;
  }

  async initiate(request: CollectInitiateRequest) {
    this.requests.push(request);
    if (this.unreachable) throw new ProviderUnavailableError('fake', 503);
    return this.card
      ? { providerReference: `sess-${request.reference}`, paymentUrl: `https://checkout.test/pay/${request.reference}` }
      : { providerReference: `momo-${request.reference}` };
  }

  async status(providerReference: string) {
    this.queries.push(providerReference);
    if (this.unreachable) throw new ProviderUnavailableError('fake', 503);
    return this.outcome;
  }

  verifyNotification(): string | null {
    return null;
  }
}

export interface Harness {
  service: CollectionsService;
  projection: CollectionProjection;
  store: EventStore;
  momo: FakeCollector;
  card: FakeCollector;
  warnings: string[];
  /** Folds every event written so far into collection_view (the app runs it on its subscription). */
  project(): Promise<void>;
  /** Moves the service's clock on. */
  advance(ms: number): Date;
  now(): Date;
  /** The types of the collection's stream, its own events only. */
  eventTypes(internalReference: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Puts something between the service and the SQL event store (a fault, or KurrentDB's lack of SQL transactions). */
  eventStore?: (store: SqlEventStore) => EventStore;
  /** The database (describeOnSqlEngines); PGlite in memory by default. */
  engine?: () => Promise<SqlEngineUnderTest>;
}

/**
 * The suite's harness, opened before its first test and closed after its last; before each test both fake providers
 * are reachable again and answer PENDING. The object is filled in when the suite starts, so a describe can name it.
 */
export function harnessPerSuite(options: HarnessOptions = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => void Object.assign(h, await openHarness(options)));
  afterAll(() => h.close());
  beforeEach(() => {
    for (const fake of [h.momo, h.card]) {
      fake.unreachable = false;
      fake.outcome = { status: 'PENDING' };
    }
  });
  return h;
}

export async function openHarness({ eventStore = (store) => store, engine }: HarnessOptions = {}): Promise<Harness> {
  const opened = engine ? await engine() : undefined;
  const sql: SqlDatabase = opened?.db ?? (await openSqlDatabase('pglite://memory'));
  const store = await SqlEventStore.create(sql);
  const collections = new DeciderRuntime(eventStore(store), collectionDecider, { oneFlowPerStream: true });
  const momo = new FakeCollector(false);
  const card = new FakeCollector(true);
  const warnings: string[] = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => void warnings.push(message),
    error: () => undefined,
    child: () => log,
  };
  let clock = new Date('2026-01-01T08:00:00.000Z');
  const projection = await CollectionProjection.open(sql, store, CONFIG.statusPollMs);
  const service = new CollectionsService({
    collections,
    references: await ReferenceRegistry.open(sql),
    projection,
    config: CONFIG,
    collectors: (providerCode) => (providerCode === 'card_ug' ? card : momo),
    urls: { providerCallback: () => CALLBACK_URL, checkoutReturn: () => GATEWAY_URL },
    log,
    metrics: NO_METRICS,
    now: () => clock,
  });
  return {
    service,
    projection,
    store,
    momo,
    card,
    warnings,
    project: async () => projection.applyPage(await store.readAll()),
    advance: (ms) => (clock = new Date(clock.getTime() + ms)),
    now: () => clock,
    eventTypes: async (internalReference) =>
      (await collections.load(internalReference)).events.map((event) => event.type),
    close: async () => {
      await store.close();
      await (opened ? opened.close() : sql.close());
    },
  };
}

let requests = 0;

/** A MoMo request with a merchant reference of its own. */
export function momoRequest(overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    merchant_reference: `order-${++requests}`,
    ...MOMO_REQUEST,
    description: 'School fees',
    charge_customer: false,
    require_confirmation: false,
    ...overrides,
  };
}

export function cardRequest(overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    merchant_reference: `order-${++requests}`,
    transaction_method: 'CARD',
    provider_code: 'card_ug',
    currency: 'UGX',
    amount: 25000,
    customer_name: 'Jane Doe',
    customer_email: 'jane@example.com',
    charge_customer: false,
    require_confirmation: true,
    redirect_url: 'https://merchant.example/return',
    ...overrides,
  };
}

export const MERCHANT = 'merchant-1';

/** The internal_reference an acknowledgement names. */
export const internalReferenceOf = (acknowledgement: { data: unknown }) =>
  (acknowledgement.data as { internal_reference: string }).internal_reference;
