export * from './commands';
export * from './integration';
export * from './vocabulary';
