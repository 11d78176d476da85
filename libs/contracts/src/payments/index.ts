export * from './prn';
export * from './vocabulary';
export * from './schemas';
export * from './integration';
export * from './commands';
