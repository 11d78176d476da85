import { COLLECTION_STREAM_PREFIX, eventSchemaEntries, type EventSchemaEntry } from '@paygate/contracts';
import { COLLECTION_EVENT_SCHEMA_VERSION, COLLECTION_EVENT_SCHEMAS } from './events';

/** The collection's domain events at every version ever written, for `paygate events schema`. */
export const COLLECTION_EVENT_CATALOGUE: readonly EventSchemaEntry[] = eventSchemaEntries(
  COLLECTION_EVENT_SCHEMAS,
  COLLECTION_EVENT_SCHEMA_VERSION,
  COLLECTION_EVENT_SCHEMA_VERSION,
  'domain',
  COLLECTION_STREAM_PREFIX,
);
