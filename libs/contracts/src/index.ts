export * from './rejections';
export * from './service-contract';
export * from './publication';
export * from './collections';
export * from './payments';
export * from './callbacks';
export * from './connectors';
export * from './billers';
