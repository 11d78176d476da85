import type { Logger } from '@paygate/logging';

/** A logger that drops everything: for specs whose subject logs but whose assertions are elsewhere. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
