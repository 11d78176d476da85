export * from './decider';
export * from './event-reader';
