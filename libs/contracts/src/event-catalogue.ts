import { COLLECTION_EVENT_SCHEMA_VERSION, COLLECTION_STREAM_PREFIX } from './collections/events';
import { COLLECTION_INTEGRATION_VERSION } from './collections/integration';
import { COLLECTION_EVENT_SCHEMAS, COLLECTION_INTEGRATION_SCHEMAS } from './collections/schemas';
import { PAYMENTS_EVENT_SCHEMA_VERSION, SERVICE_PAYMENT_STREAM_PREFIX, WALLET_EVENT_SCHEMA_VERSION, WALLET_STREAM_PREFIX } from './payments/events';
import { PAYMENTS_INTEGRATION_VERSION } from './payments/integration';
import { PAYMENTS_INTEGRATION_SCHEMAS, SERVICE_PAYMENT_EVENT_SCHEMAS, WALLET_EVENT_SCHEMAS, WALLET_EVENT_SCHEMAS_V1 } from './payments/schemas';

/** One event type at one version: what `paygate events schema` prints. */
export interface EventSchemaEntry {
  type: string;
  /** `metadata.schemaVersion` of events written in this shape. */
  version: number;
  /** False for a shape no longer written: readers upcast it to `currentVersion`. */
  current: boolean;
  currentVersion: number;
  /** Domain events stay in their context; integration events (`<context>.<Name>`) are what other contexts consume. */
  kind: 'domain' | 'integration';
  /** The streams it is written to. */
  streamPrefix: string;
  /** JSON Schema (draft 2020-12) of `data`. */
  schema: Record<string, unknown>;
}

function entries(
  schemas: Record<string, Record<string, unknown>>,
  version: number,
  currentVersion: number,
  kind: EventSchemaEntry['kind'],
  streamPrefix: string,
): EventSchemaEntry[] {
  return Object.entries(schemas).map(([type, schema]) => ({ type, version, current: version === currentVersion, currentVersion, kind, streamPrefix, schema }));
}

/**
 * Every event type Paygate writes, at every version it ever wrote, with its JSON Schema. A
 * version that is not current is still read: the owning domain upcasts it on read.
 */
export const EVENT_SCHEMA_CATALOGUE: readonly EventSchemaEntry[] = [
  ...entries(COLLECTION_EVENT_SCHEMAS, COLLECTION_EVENT_SCHEMA_VERSION, COLLECTION_EVENT_SCHEMA_VERSION, 'domain', COLLECTION_STREAM_PREFIX),
  ...entries(COLLECTION_INTEGRATION_SCHEMAS, COLLECTION_INTEGRATION_VERSION, COLLECTION_INTEGRATION_VERSION, 'integration', COLLECTION_STREAM_PREFIX),
  ...entries(SERVICE_PAYMENT_EVENT_SCHEMAS, PAYMENTS_EVENT_SCHEMA_VERSION, PAYMENTS_EVENT_SCHEMA_VERSION, 'domain', SERVICE_PAYMENT_STREAM_PREFIX),
  ...entries(PAYMENTS_INTEGRATION_SCHEMAS, PAYMENTS_INTEGRATION_VERSION, PAYMENTS_INTEGRATION_VERSION, 'integration', SERVICE_PAYMENT_STREAM_PREFIX),
  ...entries(WALLET_EVENT_SCHEMAS_V1, 1, WALLET_EVENT_SCHEMA_VERSION, 'domain', WALLET_STREAM_PREFIX),
  ...entries(WALLET_EVENT_SCHEMAS, WALLET_EVENT_SCHEMA_VERSION, WALLET_EVENT_SCHEMA_VERSION, 'domain', WALLET_STREAM_PREFIX),
];
