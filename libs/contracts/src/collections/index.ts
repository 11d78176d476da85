export * from './commands';
export * from './vocabulary';
export * from './schemas';
export * from './integration';
export * from './catalogue';
export * from './request-rules';
