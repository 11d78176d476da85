/** `() => ConnectorRegistry`: built on first use, once this process knows its own URL. */
export const CONNECTORS = Symbol('Connectors');
