import { PassThrough } from 'node:stream';
import { main } from '@paygate/cli';
import { eventually, type MerchantCredentials } from '@paygate/testing';

/** The environment `paygate listen` and `paygate trigger` read: the merchant's keys and the gateway. */
export const merchantEnv = (
  apiUrl: string,
  merchant: MerchantCredentials,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  PAYGATE_API_URL: apiUrl,
  PAYGATE_PUBLIC_KEY: merchant.publicKey,
  PAYGATE_SECRET_KEY: merchant.secretKey,
  ...extra,
});

/** A running `paygate listen` (the CLI's main in this process), its output readable as it is written. */
export class RunningCli {
  private out = '';
  private err = '';
  private readonly interrupt = new AbortController();
  readonly exited: Promise<number>;

  constructor(argv: string[], env: Record<string, string>) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on('data', (chunk: Buffer) => (this.out += chunk.toString('utf8')));
    stderr.on('data', (chunk: Buffer) => (this.err += chunk.toString('utf8')));
    this.exited = main(argv, { env, stdout, stderr, signal: this.interrupt.signal });
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  /** Waits until stdout has a line matching `pattern`; returns the match. */
  waitForLine(pattern: RegExp, what: string, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return eventually(
      () =>
        this.out
          .split('\n')
          .map((line) => line.match(pattern))
          .find(Boolean) ?? undefined,
      timeoutMs,
      `${what} (stdout so far: ${this.out})`,
    );
  }

  /** What ^C does: the first SIGINT aborts the command's signal. */
  async stop(): Promise<number> {
    this.interrupt.abort();
    return this.exited;
  }
}
