export * from './commands';
export * from './integration';
