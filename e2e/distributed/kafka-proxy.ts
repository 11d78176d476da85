import { connect, createServer, type Socket } from 'node:net';

export interface KafkaProxy {
  /** BROKER_URL for an app that should reach the broker through the proxy. */
  url: string;
  /** Broker addresses rewritten so far (zero: the clients were not routed through the proxy). */
  rewrites(): number;
  /** The broker disappears for the proxy's clients: every connection is destroyed, new ones refused. */
  cut(): Promise<void>;
  /** The broker becomes unreachable as behind a network partition: connections stay open, nothing gets through. */
  partition(): void;
}

/**
 * A loopback TCP proxy in front of the single Kafka broker of `brokerUrl`, so that a test can
 * make the broker disappear for the apps it started without touching the shared broker.
 *
 * Kafka clients only bootstrap from the address they are given: they then connect to the
 * addresses the broker advertises (Metadata, FindCoordinator responses). The proxy frames each
 * response (a 4-byte size, then the body) and rewrites the broker's advertised host and port
 * (the ones in `brokerUrl`, which is what scripts/kafka.sh advertises) to its own; the port has
 * a fixed width, so no size changes.
 */
export async function startKafkaProxy(brokerUrl: string): Promise<KafkaProxy> {
  const [host, port] = new URL(brokerUrl.replace(/^kafka:/, 'tcp:')).host.split(':');
  const sockets = new Set<Socket>();
  let rewrites = 0;
  let proxyPort = 0;
  const advertised = Buffer.concat([Buffer.from(host), int32(Number(port))]);

  let partitioned = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    if (partitioned) return; // held open, never answered
    const broker = connect(Number(port), host);
    track(broker);
    // Either side closing ends the pair, as one TCP path would.
    client.once('close', () => broker.destroy());
    broker.once('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (!partitioned) broker.write(chunk);
    });
    let pending = Buffer.alloc(0);
    broker.on('data', (chunk: Buffer) => {
      if (partitioned) return;
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = 4 + pending.readInt32BE(0);
        const frame = Buffer.from(pending.subarray(0, size));
        pending = pending.subarray(size);
        for (let at = frame.indexOf(advertised); at !== -1; at = frame.indexOf(advertised, at + advertised.length)) {
          frame.writeInt32BE(proxyPort, at + host.length);
          rewrites += 1;
        }
        client.write(frame);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  proxyPort = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `kafka://127.0.0.1:${proxyPort}`,
    rewrites: () => rewrites,
    partition: () => {
      partitioned = true;
    },
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}
