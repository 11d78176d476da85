import {
  eventSchemaEntries,
  SERVICE_PAYMENT_STREAM_PREFIX,
  WALLET_STREAM_PREFIX,
  type EventSchemaEntry,
} from '@paygate/contracts';
import {
  PAYMENTS_EVENT_SCHEMA_VERSION,
  SERVICE_PAYMENT_EVENT_SCHEMAS,
  WALLET_EVENT_SCHEMA_VERSION,
  WALLET_EVENT_SCHEMAS,
  WALLET_EVENT_SCHEMAS_V1,
} from './events';

/** The service payment's and the wallet's domain events at every version ever written, for `paygate events schema`. */
export const PAYMENTS_EVENT_CATALOGUE: readonly EventSchemaEntry[] = [
  ...eventSchemaEntries(
    SERVICE_PAYMENT_EVENT_SCHEMAS,
    PAYMENTS_EVENT_SCHEMA_VERSION,
    PAYMENTS_EVENT_SCHEMA_VERSION,
    'domain',
    SERVICE_PAYMENT_STREAM_PREFIX,
  ),
  ...eventSchemaEntries(WALLET_EVENT_SCHEMAS_V1, 1, WALLET_EVENT_SCHEMA_VERSION, 'domain', WALLET_STREAM_PREFIX),
  ...eventSchemaEntries(
    WALLET_EVENT_SCHEMAS,
    WALLET_EVENT_SCHEMA_VERSION,
    WALLET_EVENT_SCHEMA_VERSION,
    'domain',
    WALLET_STREAM_PREFIX,
  ),
];
