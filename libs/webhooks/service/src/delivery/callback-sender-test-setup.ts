/**
 * Shared setup of the callback sender specs (callback-sender*.spec.ts): a callback to send, loopback receivers that
 * count their connections, and senders; receivers and senders are closed after each test.
 *
 * Test code (it uses jest's hooks): jest does not collect it (not *.spec.ts) and the build leaves it out
 * (tsconfig.build.json).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackSender } from './callback-sender';
import type { DeliveryConfig } from './delivery-config';

export const KEY = 'whsk_sender_spec_key';
export const payload = {
  id: 7,
  merchant_reference: 'MR-7',
  internal_reference: 'IR-7',
  transaction_status: 'COMPLETED',
  status_message: 'Paid — ✓',
};
export const body = JSON.stringify({ event: 'transaction.completed', payload });

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Answers a request once its body is in. */
type Handler = (response: ServerResponse, received: Received) => void;

const thanks: Handler = (response) => response.end('thanks');

export function senderHarness() {
  let opened: Array<{ close: () => Promise<unknown> }> = [];
  afterEach(async () => {
    await Promise.all(opened.map((each) => each.close()));
    opened = [];
  });

  /** A loopback endpoint that records what it receives; `handle` answers (200 `thanks`), `configure` sets it up. */
  async function receiver(handle: Handler = thanks, configure: (server: Server) => void = () => undefined) {
    const received: Received[] = [];
    let connections = 0;
    let open = 0;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
        received.push(entry);
        handle(response, entry);
      });
    });
    server.on('connection', (socket) => {
      connections += 1;
      open += 1;
      socket.on('close', () => (open -= 1));
    });
    configure(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const close = () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    };
    opened.push({ close });
    return {
      received,
      port,
      url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
      /** Connections made to it so far. */
      connections: () => connections,
      /** Connections to it not closed yet. */
      openConnections: () => open,
      close,
    };
  }

  /** A sender to loopback receivers (private targets allowed unless overridden). */
  function sender(overrides: Partial<Pick<DeliveryConfig, 'timeoutMs' | 'allowPrivate' | 'perHostConcurrency'>> = {}) {
    const created = new CallbackSender({ timeoutMs: 2_000, allowPrivate: true, perHostConcurrency: 4, ...overrides });
    opened.push(created);
    return created;
  }

  return { receiver, sender };
}
