import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
