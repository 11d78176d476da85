import { ProviderUnavailableError } from '@paygate/connectors';
import { fakeProvider, silentProvider } from './fake-providers';

/** Bodies that are no answer to any operation: not JSON, empty, or JSON that is no object. */
export const NOT_AN_ANSWER = ['this is not JSON', '', 'null', '[]', '{}', '42'];

/** The error `operation` fails with: it must fail, and nothing the error shows may contain one of `secrets`. */
export async function failureShowingNoSecret(operation: () => Promise<unknown>, secrets: string[]): Promise<Error> {
  const error = await operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  const shown = [
    String(error),
    (error as Error).stack ?? '',
    String((error as Error).cause ?? ''),
    JSON.stringify(error),
  ].join('\n');
  for (const secret of secrets) expect(shown).not.toContain(secret);
  return error as Error;
}

export interface TransportFailureTarget {
  /** Who the connector talks to, as the test names say it: 'biller', 'provider'. */
  counterpart: string;
  /** Every operation of a connector whose counterpart lives at `baseUrl`; each is started when the last is over. */
  operationsAt: (baseUrl: string, timeoutMs: number) => Array<() => Promise<unknown>>;
  /** What a counterpart failing with HTTP `status` answers (a handshake may still succeed). */
  failingWith: (status: number) => (method: string, path: string) => { status: number; body: string };
  /** Credentials the connector sends: no error may show one. */
  secrets: string[];
}

/** A counterpart that never answers, one nobody listens at and HTTP 5xx: each leaves every operation unavailable. */
export function transportFailureConformance(target: TransportFailureTarget): void {
  const failure = (operation: () => Promise<unknown>) => failureShowingNoSecret(operation, target.secrets);

  it(`reports a ${target.counterpart} that never answers as unavailable, once the timeout has passed`, async () => {
    const silent = await silentProvider();
    try {
      const operations = target.operationsAt(silent.url, 300);
      const started = Date.now();
      for (const operation of operations) {
        const error = await failure(operation);
        expect(error).toBeInstanceOf(ProviderUnavailableError);
        expect(error.message).toMatch(/ unavailable: no response$/);
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(operations.length * 300 - 50);
    } finally {
      await silent.close();
    }
  });

  it(`reports a ${target.counterpart} nobody listens at as unavailable`, async () => {
    const closed = await silentProvider();
    await closed.close();
    for (const operation of target.operationsAt(closed.url, 5_000)) {
      const error = await failure(operation);
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(error.message).toMatch(/ unavailable: no response$/);
    }
  });

  it.each([500, 502, 503, 504])('reports HTTP %i as unavailable', async (status) => {
    const failing = await fakeProvider(target.failingWith(status));
    try {
      for (const operation of target.operationsAt(failing.url, 5_000)) {
        const error = await failure(operation);
        expect(error).toBeInstanceOf(ProviderUnavailableError);
        expect(error).toMatchObject({ status });
        expect(error.message).toMatch(new RegExp(` unavailable: HTTP ${status}$`));
      }
    } finally {
      await failing.close();
    }
  });
}
