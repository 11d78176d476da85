export { CliError, oneLine } from './cli-error';
export { kafkaSecurityFrom, openStores, storeUrlsFrom, type StoreUrls, type Stores } from './stores';
export { EXPORTED_COLUMNS, toExportedEvent, type ExportedEvent } from './exported-event';
export { checkSelection, selectEvents, type EventSelection } from './event-selection';
export { EXPORT_FORMATS, openSink, type EventSink, type ExportFormat } from './sinks';
export { exportEvents, type ExportOptions, type ExportResult } from './export-events';
export {
  compareReadModels,
  rebuildReadModels,
  type ReadModelDifference,
  type ReadModelTable,
  type RebuildableReadModel,
  type RebuildResult,
  type TableComparison,
} from './read-models';
export { replayEvents, replayTopic, type ReplayResult } from './replay';
