/**
 * The command transport a gateway reaches its services by, measured with one trivial handler,
 * so what is measured is the round trip alone (`npm run bench:commands`):
 *
 * - ceiling: a bare node:net round trip (one JSON line out, one back) on loopback, and the same
 *   over mutual TLS (node:tls with the layout's certificates): what authentication costs alone;
 * - the TcpCommandBus (@nestjs/microservices' TCP transport over mutual TLS, a connection per
 *   instance, round-robin), with one instance and with two behind one address.
 *
 * Sender and servers share this process, so each figure includes both
 * ends' CPU on this machine. BENCH_SECONDS (default 10) per transport, BENCH_IN_FLIGHT (64).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';
import { createInterface } from 'node:readline';
import { ContractCommand, serviceContract, type ContractMessage } from '@paygate/contracts';
import { createLogger } from '@paygate/logging';
import { readCommandTls, TcpCommandBus, type CommandBus } from '@paygate/messaging';
import { NO_METRICS } from '@paygate/metrics';
import { freePort } from '@paygate/net-guard';
import { localCommandTlsDir } from '../local/command-tls';
import { met, ms, percentile } from './figures';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const log = createLogger('bench-commands', 'error');

class Echo extends ContractCommand<
  { merchantReference: string; amount: number },
  { accepted: boolean; reference: string }
> {}
const SERVICE = serviceContract('bench', { servedBy: 'collections', sentBy: ['api-gateway'] }, { echo: Echo });
const echo = async (message: ContractMessage) => ({
  accepted: true,
  reference: (message as Echo).payload.merchantReference,
});
const payload = (i: number) => ({ merchantReference: `bench-${i}`, amount: 1000 });

interface Row {
  transport: string;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** IN_FLIGHT callers, each sending its next command when the last is answered. */
async function measure(transport: string, call: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < 200; i++) await call(i); // connections open, code warm
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        try {
          await call(sent++);
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const row = {
    transport,
    perSecond: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
  console.log(
    `${transport}: ${Math.round(row.perSecond)}/s, p50 ${ms(row.p50)} ms, p99 ${ms(row.p99)} ms, ${errors} errors`,
  );
  return row;
}

/**
 * The ceiling: one JSON line each way over a bare loopback socket, answers matched by id; with
 * `tls`, the same socket over mutual TLS with the layout's certificates.
 */
async function bareSocket(tls: boolean): Promise<Row> {
  const answer = (socket: Socket) =>
    createInterface({ input: socket }).on('line', (line) => {
      const { id, body } = JSON.parse(line) as { id: number; body: { merchantReference: string } };
      socket.write(`${JSON.stringify({ id, reply: { accepted: true, reference: body.merchantReference } })}\n`);
    });
  const dir = localCommandTlsDir('collections');
  const [ca, cert, key] = ['ca.crt', 'tls.crt', 'tls.key'].map((file) => readFileSync(join(dir, file)));
  const credentials = { ca, cert, key, minVersion: 'TLSv1.3' as const };
  const server = tls
    ? createTlsServer({ ...credentials, requestCert: true, rejectUnauthorized: true }, answer)
    : createServer(answer);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const socket: Socket = tls
    ? connectTls({ ...credentials, port, host: '127.0.0.1', checkServerIdentity: () => undefined })
    : connect(port, '127.0.0.1');
  await once(socket, tls ? 'secureConnect' : 'connect');
  const pending = new Map<number, () => void>();
  createInterface({ input: socket }).on('line', (line) => pending.get((JSON.parse(line) as { id: number }).id)?.());
  let next = 0;
  const row = await measure(tls ? 'bare node:tls round trip, mutual TLS' : 'ceiling: bare node:net round trip', (i) => {
    const id = next++;
    return new Promise<void>((resolve) => {
      pending.set(id, () => (pending.delete(id), resolve()));
      socket.write(`${JSON.stringify({ id, body: payload(i) })}\n`);
    });
  });
  socket.destroy();
  server.close();
  return row;
}

async function viaBus(transport: string, sender: CommandBus, close: () => Promise<unknown>): Promise<Row> {
  const row = await measure(transport, (i) => sender.send(new Echo(payload(i))));
  await close();
  return row;
}

/**
 * `instances` servers of the bench service and a sender dealing commands over them, all on the layout's certificates.
 */
async function remote(instances: number): Promise<Row> {
  const [tls, gatewayTls] = [
    readCommandTls(localCommandTlsDir('collections')),
    readCommandTls(localCommandTlsDir('api-gateway')),
  ];
  const ports = await Promise.all(Array.from({ length: instances }, () => freePort()));
  const servers = await Promise.all(
    ports.map(async (port) => {
      const server = new TcpCommandBus(
        { listenUrl: `tcp://127.0.0.1:${port}`, services: {}, tls },
        log,
        NO_METRICS,
        10_000,
      );
      await server.serve(SERVICE, echo);
      return server;
    }),
  );
  const sender = new TcpCommandBus(
    { services: { bench: `tcp://${ports.map((port) => `127.0.0.1:${port}`).join(',')}` }, tls: gatewayTls },
    log,
    NO_METRICS,
    10_000,
  );
  return viaBus(
    `TcpCommandBus (mutual TLS), ${instances} instance${instances > 1 ? 's, round-robin' : ''}`,
    sender,
    () => Promise.all([sender, ...servers].map((bus) => bus.close())),
  );
}

async function main(): Promise<void> {
  console.log(`Command round trips, ${IN_FLIGHT} in flight, ${SECONDS} s each, sender and servers in this process\n`);
  const ceiling = await bareSocket(false);
  const rows = [ceiling, await bareSocket(true), await remote(1), await remote(2)];

  console.log('\n| transport | commands/s | share of ceiling | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.transport} | ${Math.round(row.perSecond)} | ${((100 * row.perSecond) / ceiling.perSecond).toFixed(0)}% | ${ms(row.p50)} | ${ms(row.p99)} | ${row.errors} |`,
    );
  const chosen = rows[3];
  const share = (100 * chosen.perSecond) / ceiling.perSecond;
  console.log(
    `Aim: the TcpCommandBus over two instances >= 15% of the bare round trip, p99 < 20 ms, zero errors: ${share.toFixed(0)}%, p99 ${ms(chosen.p99)} ms, ${chosen.errors} errors ` +
      met(share >= 15 && chosen.p99 < 20 && chosen.errors === 0),
  );
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
