import { freePort } from '@paygate/net-guard';

/** The services whose commands the gateway sends, by the app that serves them. */
const SERVED_BY = {
  collections: 'COLLECTIONS_COMMANDS_URL',
  'service-payments': 'PAYMENTS_COMMANDS_URL',
  'webhook-dispatcher': 'WEBHOOKS_COMMANDS_URL',
} as const;
export type ServingApp = keyof typeof SERVED_BY;

export interface CommandRoutes {
  /** *_COMMANDS_URL for every app (only a gateway sends; the others ignore the addresses). */
  senders: Record<string, string>;
  /** COMMANDS_LISTEN_URL for the `instance`-th instance of a serving app. */
  listen(app: ServingApp, instance?: number): Record<string, string>;
}

/**
 * Command addresses for a distributed layout on this machine: a free loopback port per instance
 * of each serving app, and for the gateway the list of its instances (dealt round-robin). Each
 * app's certificate is localCommandTlsEnv's.
 */
export async function localCommandRoutes(instances: Partial<Record<ServingApp, number>> = {}): Promise<CommandRoutes> {
  const ports = {} as Record<ServingApp, number[]>;
  for (const app of Object.keys(SERVED_BY) as ServingApp[])
    ports[app] = await Promise.all(Array.from({ length: instances[app] ?? 1 }, () => freePort()));
  const senders: Record<string, string> = {};
  for (const app of Object.keys(SERVED_BY) as ServingApp[])
    senders[SERVED_BY[app]] = `tcp://${ports[app].map((port) => `127.0.0.1:${port}`).join(',')}`;
  return {
    senders,
    listen: (app, instance = 0) => {
      const port = ports[app][instance];
      if (port === undefined) throw new Error(`no command port was set aside for ${app} instance ${instance}`);
      return { COMMANDS_LISTEN_URL: `tcp://127.0.0.1:${port}` };
    },
  };
}
