export * from './services';
export * from './collections';
export * from './callbacks';
export * from './connectors';
