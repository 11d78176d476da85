import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How often a closing server looks for connections that never sent a byte. */
const SILENT_CHECK_MS = 250;

/**
 * The HTTP side of a graceful shutdown. Once draining, readiness answers 503 and every response
 * tells its client to close the connection, so no keep-alive connection outlives the request it
 * carries; one that goes idle anyway (its response had already started) is closed at once. Once
 * the listener is closing, connections that send nothing are closed too: a client may connect
 * and send nothing (a pool opening a connection ahead, a request abandoned while connecting), and
 * the server's close would wait for it to leave.
 */
export class Drain {
  private active = false;
  private readonly inFlight = new Set<ServerResponse>();
  private readonly beginning: (() => void)[] = [];
  private server?: Server;
  private readonly silent = new Set<Socket>();
  private readonly connections = new Set<Socket>();
  /** Per connection: its responses not yet finished, and how many bytes it had sent when the last one finished. */
  private readonly pending = new WeakMap<Socket, number>();
  private readonly readAtLastAnswer = new WeakMap<Socket, number>();

  get draining(): boolean {
    return this.active;
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Follows the requests of `server`; before any other listener, so draining applies to every response. */
  attach(server: Server): void {
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.silent.add(socket);
      this.connections.add(socket);
      socket.once('data', () => this.silent.delete(socket));
      socket.once('close', () => {
        this.silent.delete(socket);
        this.connections.delete(socket);
      });
    });
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      this.inFlight.add(response);
      this.pending.set(socket, (this.pending.get(socket) ?? 0) + 1);
      if (this.active) closeConnectionAfter(response);
      response.once('close', () => {
        this.inFlight.delete(response);
        this.pending.set(socket, (this.pending.get(socket) ?? 1) - 1);
        this.readAtLastAnswer.set(socket, socket.bytesRead);
        if (this.active) setImmediate(() => server.closeIdleConnections());
      });
    });
    // Node 26 (nodejs/node#63470) counts a connection that has not sent a request yet as idle, so closing the server
    // would reset one whose request is still in the kernel's buffer. Here idle keeps its older meaning, a connection
    // between requests; one that has sent nothing is closeSilentConnections' to judge, after a whole check period.
    server.closeIdleConnections = () => {
      for (const socket of this.connections) if (this.betweenRequests(socket)) socket.destroy();
    };
  }

  /** Answered at least once, nothing in flight, and no byte of a next request since. */
  private betweenRequests(socket: Socket): boolean {
    const answeredAt = this.readAtLastAnswer.get(socket);
    return answeredAt !== undefined && this.pending.get(socket) === 0 && socket.bytesRead === answeredAt;
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

  /**
   * The listener is closing: connections that have sent nothing are closed, until the server has closed. A client's
   * request can be in the kernel's buffer, not yet read, when the listener closes (it connected just before): so a
   * connection is closed as silent only once it has sent nothing through a whole check period, and only after the
   * event loop has read what had arrived (setImmediate runs after the poll that reads sockets).
   */
  closeSilentConnections(): void {
    const server = this.server;
    if (!server) return;
    let silentAtLastCheck = new Set<Socket>();
    const closeSilent = () =>
      setImmediate(() => {
        for (const socket of silentAtLastCheck) if (socket.bytesRead === 0) socket.destroy();
        silentAtLastCheck = new Set([...this.silent].filter((socket) => socket.bytesRead === 0));
      });
    closeSilent();
    const check = setInterval(closeSilent, SILENT_CHECK_MS).unref();
    server.once('close', () => clearInterval(check));
  }
}

function closeConnectionAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}
