export * from './events';
export * from './event-catalogue';
export * from './collection';
export * from './messages';
export * from './record';
export * from './references';
export * from './collection-decider';
export * from './collection-process';
