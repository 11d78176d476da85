import { Client, type ClientConfig } from 'pg';

type OnNotify = (payload: string | undefined) => void;

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * The LISTEN side of a PostgreSQL handle: one connection of its own, outside the pool (a pooled
 * connection would stop hearing once released), listening on every channel asked for. A lost
 * connection is opened again with capped back-off; once it listens again every handler hears
 * `undefined`, since what was notified meanwhile is gone. It never throws for a server that is
 * down: the statements of the process say so, and the handlers hear when it is back.
 */
export class PostgresListener {
  private readonly handlers = new Map<string, Set<OnNotify>>();
  private client?: Client;
  private connecting?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;

  constructor(private readonly config: ClientConfig) {}

  async listen(channel: string, onNotify: OnNotify): Promise<() => Promise<void>> {
    if (!CHANNEL.test(channel)) throw new Error(`channel name "${channel}" must match ${CHANNEL}`);
    let listeners = this.handlers.get(channel);
    const first = !listeners;
    listeners ??= new Set();
    listeners.add(onNotify);
    this.handlers.set(channel, listeners);
    await this.connect();
    // LISTEN twice is harmless; a connection opened meanwhile may have missed this channel.
    const client = this.client;
    if (first && client) await client.query(`listen ${channel}`).catch(() => this.lost(client));
    return async () => {
      listeners.delete(onNotify);
      if (listeners.size > 0 || this.handlers.get(channel) !== listeners) return;
      this.handlers.delete(channel);
      await this.client?.query(`unlisten ${channel}`).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new Client({ ...this.config, keepAlive: true });
    // A lost connection emits 'error' and then 'end'; 'end' opens another.
    client.on('error', () => undefined);
    client.on('notification', ({ channel, payload }) => {
      for (const onNotify of this.handlers.get(channel) ?? []) onNotify(payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
    } catch {
      await client.end().catch(() => undefined);
      this.retryLater();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    client.once('end', () => this.lost(client));
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    // Whatever was notified before this connection listened is not coming: every handler looks again.
    for (const listeners of this.handlers.values()) for (const onNotify of listeners) onNotify(undefined);
  }

  private lost(client: Client | undefined): void {
    if (!client || this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (!this.closed) void this.connect();
  }

  private retryLater(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}
