export * from './commands';
export * from './vocabulary';
export * from './integration';
export * from './catalogue';
export * from './request-rules';
