import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The HTTP side of a graceful shutdown. Once draining, readiness answers 503 and every response
 * tells its client to close the connection, so no keep-alive connection outlives the request it
 * carries; one that goes idle anyway (its response had already started) is closed at once.
 */
export class Drain {
  private active = false;
  private readonly inFlight = new Set<ServerResponse>();
  private readonly beginning: (() => void)[] = [];

  get draining(): boolean {
    return this.active;
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Follows the requests of `server`; before any other listener, so draining applies to every response. */
  attach(server: Server): void {
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      this.inFlight.add(response);
      if (this.active) closeConnectionAfter(response);
      response.once('close', () => {
        this.inFlight.delete(response);
        if (this.active) setImmediate(() => server.closeIdleConnections());
      });
    });
  }

  /**
   * `listener` runs when the drain begins: work that waits on its own (a long poll) answers now, so the drain need not
   * wait for it.
   */
  onBegin(listener: () => void): void {
    this.beginning.push(listener);
  }

  begin(): void {
    this.active = true;
    for (const response of this.inFlight) closeConnectionAfter(response);
    for (const listener of this.beginning) listener();
  }
}

function closeConnectionAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}
