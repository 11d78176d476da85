export * from './commands';
export * from './events';
export * from './schemas';
export * from './catalogue';
export * from './request-rules';
