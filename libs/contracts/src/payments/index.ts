export * from './prn';
export * from './vocabulary';
export * from './integration';
export * from './commands';
