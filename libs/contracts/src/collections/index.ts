export * from './commands';
export * from './events';
export * from './schemas';
export * from './integration';
export * from './catalogue';
export * from './request-rules';
