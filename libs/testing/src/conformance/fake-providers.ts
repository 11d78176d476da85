import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

/*
 * Stand-ins for a provider that the conformance suites start on 127.0.0.1: they never talk to
 * anything but a listener of their own.
 */

/** A provider stand-in on 127.0.0.1 answering whatever `answer` says. */
export async function fakeProvider(
  answer: (method: string, path: string) => { status: number; body: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const { status, body } = answer(request.method ?? '', request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A listener on 127.0.0.1 that accepts connections and never answers. */
export async function silentProvider(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
