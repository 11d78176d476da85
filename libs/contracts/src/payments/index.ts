export * from './prn';
export * from './events';
export * from './schemas';
export * from './integration';
export * from './commands';
