import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of one server (the database), so that the soak can take the
 * server away from the apps without touching it: `cut()` destroys every connection through the
 * proxy and holds new ones (accepted, never answered, as behind a network partition), or
 * refuses them; `restore()` lets the held connections and new ones through again.
 */
export class TcpProxy {
  private readonly open = new Set<Socket>();
  /** Connections accepted during a cut, each with how to let it through. */
  private readonly held = new Map<Socket, () => void>();
  private mode: 'through' | 'hold' | 'refuse' = 'through';
  private server?: Server;
  private listeningPort = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  get port(): number {
    return this.listeningPort;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.listen();
    return proxy;
  }

  /** Listens on 127.0.0.1: on a port of its own the first time, on the same one again after a refusing cut. */
  private async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listeningPort, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.listeningPort = typeof address === 'object' && address ? address.port : this.listeningPort;
    this.server = server;
  }

  private async unlisten(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Every connection is destroyed; new ones are held (`hold`) or refused (`refuse`) until restore(). */
  async cut(mode: 'hold' | 'refuse' = 'hold'): Promise<void> {
    this.mode = mode;
    for (const socket of this.open) socket.destroy();
    if (mode === 'refuse') await this.unlisten();
  }

  async restore(): Promise<void> {
    if (this.mode === 'refuse') await this.listen();
    this.mode = 'through';
    const held = [...this.held.values()];
    this.held.clear();
    for (const letThrough of held) letThrough();
  }

  async close(): Promise<void> {
    this.mode = 'refuse';
    for (const socket of this.open) socket.destroy();
    await this.unlisten();
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'through') return this.forward(client);
    // Held: read (so that a client giving up is noticed and dropped) but never answered; what it
    // sent is kept for the server until restore().
    const sent: Buffer[] = [];
    const keep = (chunk: Buffer) => sent.push(chunk);
    client.on('data', keep);
    client.once('close', () => this.held.delete(client));
    this.held.set(client, () => {
      client.off('data', keep);
      this.forward(client, sent);
    });
  }

  /** Connects the client to the server, first sending what it sent while held. */
  private forward(client: Socket, sent: Buffer[] = []): void {
    const upstream = connect(this.target.port, this.target.host);
    this.track(upstream);
    // Either side closing ends the pair, as one TCP path would.
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    for (const chunk of sent) upstream.write(chunk);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private track(socket: Socket): void {
    this.open.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.open.delete(socket));
  }
}
