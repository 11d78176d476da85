export * from './catalogue';
export * from './collection';
export * from './messages';
export * from './plan';
export * from './record';
export * from './references';
export * from './collection-decider';
