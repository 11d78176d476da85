import { connect, createServer, type Server, type Socket } from 'node:net';
import { TcpProxy } from './tcp-proxy';

/** A loopback server that answers every chunk with the same bytes, and counts its connections. */
async function echoServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, connections: () => connections };
}

/** A client of the proxy: what it received so far, and whether it was closed on. */
async function client(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => received, closed };
}

const settle = (ms = 100) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the soak TCP proxy', () => {
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let proxy: TcpProxy;

  beforeEach(async () => {
    echo = await echoServer();
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: echo.port });
  });

  afterEach(async () => {
    await proxy.close();
    echo.server.close();
  });

  it('passes bytes through, cuts every connection, holds new ones and lets the live ones through on restore', async () => {
    const before = await client(proxy.port);
    before.socket.write('hello');
    await settle();
    expect(before.received()).toBe('hello');

    await proxy.cut('hold');
    await before.closed;
    const held = await client(proxy.port);
    held.socket.write('sent while cut');
    const gaveUp = await client(proxy.port);
    gaveUp.socket.destroy();
    await settle();
    expect(held.received()).toBe('');
    const connectionsDuringCut = echo.connections();

    await proxy.restore();
    await settle();
    expect(held.received()).toBe('sent while cut');
    // Only the held client that was still there reached the server.
    expect(echo.connections()).toBe(connectionsDuringCut + 1);
    held.socket.destroy();
  });

  it('refuses new connections during a refusing cut, and accepts them again on the same port after', async () => {
    const port = proxy.port;
    await proxy.cut('refuse');
    await expect(client(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await proxy.restore();
    const after = await client(port);
    after.socket.write('back');
    await settle();
    expect(after.received()).toBe('back');
    after.socket.destroy();
  });
});
