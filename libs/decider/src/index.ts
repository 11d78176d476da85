export * from './decider';
export * from './persistent-map';
