import type { Logger } from '@paygate/logging';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
const CHECK_EVERY_MS = 1_000;
const CHECK_TIMEOUT_MS = 2_000;

export interface DependencyCheck {
  /** How operators know it: `STORE_URL postgres://***@db:5432/paygate`, `BROKER_URL kafka://…`. */
  name: string;
  check(): Promise<unknown>;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]);
}

/**
 * What this process is waiting for, by dependency: while it starts (each step retried with
 * capped backoff until it answers) and while it serves (each dependency checked every second).
 * /health/ready answers 503 naming them; the log gets one line when a dependency stops
 * answering and one when it answers again, never one per retry.
 */
export class Dependencies {
  private readonly waiting = new Map<string, { since: number; reason: string }>();
  private readonly stopping = new AbortController();
  private monitor?: NodeJS.Timeout;
  /** Which watch() is current: a tick of an earlier one does not arm the next. */
  private watching = 0;

  constructor(private readonly log: Logger) {}

  /** Names of what does not answer yet, with the last reason; empty when all do. */
  waitingFor(): string[] {
    return [...this.waiting.keys()];
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** `name` does not answer: logged the first time (unless the caller logs it), listed until `up`. */
  down(name: string, error: unknown, { logged = false } = {}): void {
    const reason = reasonOf(error);
    const current = this.waiting.get(name);
    if (current) {
      current.reason = reason;
      return;
    }
    this.waiting.set(name, { since: Date.now(), reason });
    if (!logged) this.log.warn(`waiting for ${name}`, { dependency: name, reason });
  }

  up(name: string): void {
    const current = this.waiting.get(name);
    if (!current) return;
    this.waiting.delete(name);
    this.log.info(`no longer waiting for ${name}`, { dependency: name, waited_ms: Date.now() - current.since });
  }

  /**
   * Runs `attempt` until it succeeds, with backoff from 250 ms doubling to 5 s. Rejects only
   * when `stop()` is called meanwhile, or with an error that `isFinal` says no retry can fix
   * (a bad configuration).
   */
  async until<T>(
    name: string,
    attempt: () => Promise<T>,
    isFinal: (error: unknown) => boolean = () => false,
  ): Promise<T> {
    for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      if (this.stopped) throw new Error(`stopped while waiting for ${name}`);
      try {
        const value = await attempt();
        this.up(name);
        return value;
      } catch (error) {
        if (isFinal(error)) throw error;
        this.down(name, error);
      }
      await this.pause(delay);
    }
  }

  /** Checks every dependency every second from now on, until stop() or unwatch(). */
  watch(checks: DependencyCheck[]): void {
    const watching = ++this.watching;
    const tick = async () => {
      await Promise.all(
        checks.map(({ name, check }) =>
          withTimeout(check(), CHECK_TIMEOUT_MS).then(
            () => this.up(name),
            (error: unknown) => this.down(name, error),
          ),
        ),
      );
      if (!this.stopped && watching === this.watching)
        this.monitor = setTimeout(() => void tick(), CHECK_EVERY_MS).unref();
    };
    // Never what keeps a process alive: the server and the consumers are.
    this.monitor = setTimeout(() => void tick(), CHECK_EVERY_MS).unref();
  }

  /**
   * Ends the checks of the last watch() only: infrastructure closed to start again (an undone start), whose waits go
   * on.
   */
  unwatch(): void {
    this.watching++;
    clearTimeout(this.monitor);
  }

  /** Ends every wait and the checks (shutdown). */
  stop(): void {
    this.stopping.abort();
    clearTimeout(this.monitor);
  }

  private pause(ms: number): Promise<void> {
    const signal = this.stopping.signal;
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
