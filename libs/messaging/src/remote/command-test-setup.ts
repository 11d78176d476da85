import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { ClientTCP } from '@nestjs/microservices';
import { firstValueFrom, timeout } from 'rxjs';
import { ContractCommand, serviceContract } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import { NO_METRICS, type Metrics } from '@paygate/metrics';

/** What the command-port specs try to forge: a top-up, served by service-payments and sent by the gateway alone. */
export class TopUp extends ContractCommand<{ amount: number }, { balance: number }> {}
export const WALLETS = serviceContract(
  'wallets',
  { servedBy: 'service-payments', sentBy: ['api-gateway'] },
  { topUp: TopUp },
);

/** A logger keeping its warnings, and metrics keeping the refusal counter's increments. */
export function observed() {
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => warnings.push({ message, fields }),
    error: () => undefined,
    child: () => log,
  };
  const refused: Record<string, number> = {};
  const metrics: Metrics = {
    ...NO_METRICS,
    counter: (spec) => ({
      inc: (labels: Record<string, string>, by = 1) => {
        if (spec.name === 'paygate_command_connections_refused_total')
          refused[labels.reason] = (refused[labels.reason] ?? 0) + by;
      },
    }),
  };
  return { warnings, log, metrics, refused };
}

/** A folder's files as Node's TLS options take them. */
export function readCommandTlsFiles(dir: string) {
  const [ca, cert, key] = ['ca.crt', 'tls.crt', 'tls.key'].map((file) => readFileSync(join(dir, file)));
  return { ca, cert, key };
}

/**
 * What anyone on the network could try: Nest's own TCP client, with `tlsOptions` if any, writing
 * a top-up frame to the command port at `url`. Closes its connection before it resolves.
 */
export async function forgedTopUp(
  url: string,
  amount: number,
  tlsOptions?: ConnectionOptions,
): Promise<{ answered: unknown } | { refused: unknown }> {
  const client = new ClientTCP({
    host: '127.0.0.1',
    port: Number(new URL(url).port),
    ...(tlsOptions && { tlsOptions }),
  });
  const envelope = { service: WALLETS.name, command: 'topUp', payload: { amount } };
  try {
    await client.connect();
    return { answered: await firstValueFrom(client.send('paygate.command.v1', envelope).pipe(timeout(1_500))) };
  } catch (error) {
    return { refused: error };
  } finally {
    client.close();
  }
}
