import type { TObject } from '@sinclair/typebox';
import { COLLECTION_INTEGRATION_SCHEMAS, COLLECTION_INTEGRATION_VERSION } from './collections/integration';
import { COLLECTION_STREAM_PREFIX } from './collections/vocabulary';
import { PAYMENTS_INTEGRATION_SCHEMAS, PAYMENTS_INTEGRATION_VERSION } from './payments/integration';
import {
  DISBURSEMENTS_INTEGRATION_SCHEMAS,
  DISBURSEMENTS_INTEGRATION_VERSION,
  DISBURSEMENTS_PUBLICATION,
} from './disbursements/integration';
import { SERVICE_PAYMENT_STREAM_PREFIX } from './payments/vocabulary';

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
  /** JSON Schema (draft 2020-12) of `data`: the event's declaration itself. */
  schema: TObject;
}

export function eventSchemaEntries(
  schemas: Readonly<Record<string, TObject>>,
  version: number,
  currentVersion: number,
  kind: EventSchemaEntry['kind'],
  streamPrefix: string,
): EventSchemaEntry[] {
  return Object.entries(schemas).map(([type, schema]) => ({
    type,
    version,
    current: version === currentVersion,
    currentVersion,
    kind,
    streamPrefix,
    schema,
  }));
}

/**
 * The integration events every context publishes, with their JSON Schemas. Each context's domain
 * events are catalogued by its domain lib (COLLECTION_EVENT_CATALOGUE, PAYMENTS_EVENT_CATALOGUE, DISBURSEMENTS_EVENT_CATALOGUE);
 * the analysts' CLI puts them together.
 */
export const INTEGRATION_EVENT_CATALOGUE: readonly EventSchemaEntry[] = [
  ...eventSchemaEntries(
    COLLECTION_INTEGRATION_SCHEMAS,
    COLLECTION_INTEGRATION_VERSION,
    COLLECTION_INTEGRATION_VERSION,
    'integration',
    COLLECTION_STREAM_PREFIX,
  ),
  ...eventSchemaEntries(
    PAYMENTS_INTEGRATION_SCHEMAS,
    PAYMENTS_INTEGRATION_VERSION,
    PAYMENTS_INTEGRATION_VERSION,
    'integration',
    SERVICE_PAYMENT_STREAM_PREFIX,
  ),
  ...eventSchemaEntries(
    DISBURSEMENTS_INTEGRATION_SCHEMAS,
    DISBURSEMENTS_INTEGRATION_VERSION,
    DISBURSEMENTS_INTEGRATION_VERSION,
    'integration',
    DISBURSEMENTS_PUBLICATION.streamPrefixes[0],
  ),
];
