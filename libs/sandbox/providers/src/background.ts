import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { LOGGER, type Logger } from '@paygate/platform';

const CALLBACK_RETRIES = 3;
const CALLBACK_RETRY_DELAY_MS = 1_000;
const CALLBACK_ATTEMPT_TIMEOUT_MS = 5_000;

/**
 * In-process timers and provider callbacks. Timers are not durable, which is acceptable for a
 * simulator; they are cleared when the app closes so nothing touches a closed store.
 */
@Injectable()
export class Background implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();
  private readonly log: Logger;

  constructor(@Inject(LOGGER) log: Logger) {
    this.log = log.child({ module: 'sandbox-providers' });
  }

  later(delayMs: number, work: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work().catch((error: unknown) => this.log.error('sandbox background work failed', { error }));
    }, delayMs);
    this.timers.add(timer);
  }

  /** Waits `ms`, or less once the app is closing, so an injected delay never holds up a shutdown. */
  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closing.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.closing.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.closing.signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Sends a JSON callback the way a provider does: resolves once the first attempt is over,
   * then retries a non-2xx or unreachable receiver in the background. `subject` names the
   * session or request in a warning; the URL is reduced to its host since its path or query
   * may carry a token.
   */
  async callback(method: 'PUT' | 'POST', url: string, body: unknown, subject: Record<string, unknown>): Promise<void> {
    await this.attempt(method, url, JSON.stringify(body), subject, 0);
  }

  private async attempt(method: string, url: string, body: string, subject: Record<string, unknown>, retry: number): Promise<void> {
    const status = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(CALLBACK_ATTEMPT_TIMEOUT_MS)]),
    }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status;
      },
      () => undefined,
    );
    if ((status !== undefined && status >= 200 && status < 300) || this.closing.signal.aborted) return;
    if (retry < CALLBACK_RETRIES) {
      this.later(CALLBACK_RETRY_DELAY_MS, () => this.attempt(method, url, body, subject, retry + 1));
      return;
    }
    this.log.warn('provider callback abandoned', { ...subject, host: new URL(url).host, attempts: retry + 1, lastStatus: status ?? 'no response' });
  }

  onModuleDestroy(): void {
    this.closing.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
