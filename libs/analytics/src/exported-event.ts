import { schemaVersionOf } from '@paygate/decider';
import type { RecordedEvent } from '@paygate/event-store';

/**
 * One event as the CLI exports and replays it for analysts: every line of JSON Lines, every row
 * of CSV and Parquet has these columns, in this order. `version` is the event's schema version
 * (`metadata.schemaVersion`, 1 when absent), which `paygate events schema` lists.
 */
export interface ExportedEvent {
  position: string;
  stream: string;
  type: string;
  version: number;
  time: string;
  id: string;
  revision: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export const EXPORTED_COLUMNS = [
  'position',
  'stream',
  'type',
  'version',
  'time',
  'id',
  'revision',
  'data',
  'metadata',
] as const;

export function toExportedEvent(event: RecordedEvent): ExportedEvent {
  return {
    position: event.position,
    stream: event.streamName,
    type: event.type,
    version: schemaVersionOf(event.metadata),
    time: event.recordedAt,
    id: event.id,
    revision: event.revision,
    data: event.data,
    metadata: event.metadata,
  };
}
