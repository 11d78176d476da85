export * from './commands';
export * from './events';
export * from './schemas';
export * from './integration';
