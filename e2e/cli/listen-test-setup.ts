import { PassThrough } from 'node:stream';
import { main } from '@paygate/cli';
import type { InProcessPaygate } from '@paygate/standalone';
import {
  CallbackReceiver,
  eventually,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  type MerchantCredentials,
} from '@paygate/testing';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

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

/** A merchant with its own callback endpoint, and a `paygate listen` forwarding its callbacks to a local receiver. */
export interface ListeningMerchant {
  merchant: PaygateClient;
  /** The merchant's own callback endpoint. */
  merchantEndpoint: CallbackReceiver;
  /** The developer's local receiver listen forwards to, at /hooks. */
  laptop: CallbackReceiver;
  listener: RunningCli;
  /** What listen was started with: the merchant's keys and the gateway it listens to. */
  env: Record<string, string>;
  /** Stops listen and closes both receivers. */
  close(): Promise<void>;
}

/** Creates `name` at `gatewayUrl` and starts listen against `listenUrl`; resolves once listen is connected. */
export async function startListeningMerchant(
  gatewayUrl: string,
  name: string,
  listenUrl = gatewayUrl,
): Promise<ListeningMerchant> {
  const merchantEndpoint = await CallbackReceiver.start();
  const laptop = await CallbackReceiver.start();
  const merchant = await PaygateClient.withNewMerchant(gatewayUrl, TEST_ADMIN_TOKEN, name, merchantEndpoint.url());
  const env = merchantEnv(listenUrl, merchant.merchant);
  const listener = new RunningCli(['listen', '--forward-to', laptop.url('/hooks')], env);
  const close = async () => {
    await listener.stop();
    await laptop.close();
    await merchantEndpoint.close();
  };
  try {
    await listener.waitForLine(/^Ready!/, 'listen to connect');
  } catch (error) {
    await close();
    throw error;
  }
  return { merchant, merchantEndpoint, laptop, listener, env, close };
}

/**
 * An in-process Paygate with the test timers and callback settings, and `name` listening to it, for the file's tests.
 * Both are filled in by beforeAll: read them inside tests.
 */
export function useListeningPaygate(name: string): ListeningMerchant & { paygate: InProcessPaygate } {
  const started = {} as ListeningMerchant & { paygate: InProcessPaygate };
  beforeAll(async () => {
    started.paygate = await startCallbackTestPaygate();
    Object.assign(started, await startListeningMerchant(started.paygate.url, name));
  });
  afterAll(async () => {
    await started.close?.();
    await started.paygate?.close();
  });
  return started;
}
