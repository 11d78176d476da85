export * from './services';
export * from './conformance';
export * from './scenarios';
export * from './fixtures';
