export * from './logger';
export * from './log-context';
