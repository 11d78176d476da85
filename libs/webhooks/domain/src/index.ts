export * from './collection-callbacks';
