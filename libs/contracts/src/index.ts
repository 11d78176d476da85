export * from './services';
export * from './collections';
export * from './callbacks';
