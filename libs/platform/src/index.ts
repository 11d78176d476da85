export * from '@paygate/logging';
export * from './config';
export * from './envelope';
export * from './tokens';
export * from './app-url';
export * from './infrastructure';
export { createHttpApp, MAX_BODY_BYTES } from './http/create-http-app';
export { listen } from './http/listen';
export { runApp } from './run-app';
