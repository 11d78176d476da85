import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Agent } from 'undici';
import { connectRefusal, guardedDispatcher, TargetNotAllowedError, type AddressPolicy } from '@paygate/net-guard';
import { APP_URL, LOGGER, type AppUrl } from '@paygate/platform';
import type { Logger } from '@paygate/logging';
import { SANDBOX_CONFIG, type SandboxConfig } from './sandbox-config';

const CALLBACK_RETRIES = 3;
const CALLBACK_RETRY_DELAY_MS = 1_000;
const CALLBACK_ATTEMPT_TIMEOUT_MS = 5_000;
const CALLBACK_CONNECTIONS_PER_ORIGIN = 32;

/**
 * In-process timers and provider callbacks. Timers are not durable, which is acceptable for a
 * simulator; they are cleared when the app closes so nothing touches a closed store. Callback
 * URLs come from whoever calls the sandbox, so every callback passes the address guard. Callbacks
 * go over kept-alive connections, each new one guarded, closed with the app.
 */
@Injectable()
export class Background implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();
  private readonly log: Logger;
  /** The guard with the policy targetPolicy chooses: a pool per allowPrivate, all an AddressPolicy decides. */
  private readonly connections = {
    private: callbackConnections({ allowPrivate: true }),
    public: callbackConnections({ allowPrivate: false }),
  };

  constructor(
    @Inject(LOGGER) log: Logger,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(APP_URL) private readonly appUrl: AppUrl,
  ) {
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

  private async attempt(
    method: string,
    url: string,
    body: string,
    subject: Record<string, unknown>,
    retry: number,
  ): Promise<void> {
    const target = new URL(url);
    const policy = this.targetPolicy(target);
    const refused = connectRefusal(target, policy);
    const outcome = refused === undefined ? await this.send(method, target, body, policy) : { refused: true };
    // A refused target stays refused: no retry.
    if (outcome.refused)
      return this.log.warn('provider callback refused: target address not allowed', { ...subject, host: target.host });
    const { status } = outcome;
    if ((status !== undefined && status >= 200 && status < 300) || this.closing.signal.aborted) return;
    if (retry < CALLBACK_RETRIES) {
      this.later(CALLBACK_RETRY_DELAY_MS, () => this.attempt(method, url, body, subject, retry + 1));
      return;
    }
    this.log.warn('provider callback abandoned', {
      ...subject,
      host: target.host,
      attempts: retry + 1,
      lastStatus: status ?? 'no response',
    });
  }

  /**
   * ALLOW_PRIVATE_CALLBACKS, except at the base URL Paygate gives providers for its callbacks
   * (PROVIDER_CALLBACK_URL, else this process): like the callback host a real MoMo API user is
   * registered with, it is Paygate's own, and in a cluster it is a private address.
   */
  private targetPolicy(target: URL): AddressPolicy {
    const { callbackTargets, providerCallbackUrl } = this.config;
    if (callbackTargets.allowPrivate) return callbackTargets;
    return target.origin === new URL(providerCallbackUrl ?? this.appUrl.get()).origin
      ? { allowPrivate: true }
      : callbackTargets;
  }

  /**
   * One attempt: the status, or none when no response came; `refused` when the name resolved to an address the guard
   * refuses.
   */
  private async send(
    method: string,
    target: URL,
    body: string,
    policy: AddressPolicy,
  ): Promise<{ status?: number; refused?: boolean }> {
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(CALLBACK_ATTEMPT_TIMEOUT_MS)]);
    try {
      // undici's request follows no redirects, so a receiver cannot send the callback on to another address.
      const response = await this.connections[policy.allowPrivate ? 'private' : 'public'].request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { 'content-type': 'application/json' },
        body,
        signal,
      });
      // What the receiver answers is read to its end (or dropped with its connection), so the connection is reused.
      await response.body.dump().catch(() => undefined);
      return { status: response.statusCode };
    } catch (error) {
      return { refused: error instanceof TargetNotAllowedError };
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.closing.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([this.connections.private.destroy(), this.connections.public.destroy()]);
  }
}

function callbackConnections(policy: AddressPolicy): Agent {
  return guardedDispatcher(policy, {
    connectionsPerOrigin: CALLBACK_CONNECTIONS_PER_ORIGIN,
    connectTimeoutMs: CALLBACK_ATTEMPT_TIMEOUT_MS,
  });
}
