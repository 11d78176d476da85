export * from './services';
export * from './wiring-probe';
export * from './collections';
export * from './callbacks';
