export * from './services';
export * from './wiring-probe';
