export * from './decider';
export * from './event-reader';
export * from './persistent-map';
export * from './process';
