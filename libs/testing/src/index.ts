export * from './services';
export * from './sql-engines';
export * from './conformance';
export * from './scenarios';
export * from './fixtures';
export * from './certificates';
export * from './kafka-script';
export * from './process-runs';
