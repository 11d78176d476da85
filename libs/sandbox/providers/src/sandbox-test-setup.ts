import { loadConfig } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import { AppUrl, type Infrastructure } from '@paygate/platform';
import { migrate, openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { Background } from './background';
import { SANDBOX_MIGRATIONS } from './migrations';
import { sandboxConfigFrom, type SandboxConfig } from './sandbox-config';

export interface SandboxUnderTest {
  /** The stores read only `sql` of it. */
  infrastructure: Infrastructure;
  config: SandboxConfig;
  background: Background;
  /** Timers and callbacks of their own, as another process (or the same one restarted) has. */
  newBackground(): Background;
  close(): Promise<void>;
}

/**
 * The sandbox's tables on `engine` (describeOnSqlEngines's database; PGlite in memory when none), its settings from
 * `env` (no simulated latency unless given).
 */
export async function openSandbox(
  env: Record<string, string> = {},
  engine?: { db: SqlDatabase; close(): Promise<void> },
): Promise<SandboxUnderTest> {
  const sql = engine?.db ?? (await openSqlDatabase('pglite://memory'));
  await migrate(sql, SANDBOX_MIGRATIONS);
  const config = sandboxConfigFrom(loadConfig({ SANDBOX_LATENCY_MS: '0', ...env }));
  const backgrounds: Background[] = [];
  const newBackground = () => {
    const background = new Background(createLogger('sandbox-spec', 'error'), config, new AppUrl());
    backgrounds.push(background);
    return background;
  };
  return {
    infrastructure: { sql } as unknown as Infrastructure,
    config,
    background: newBackground(),
    newBackground,
    close: async () => {
      await Promise.all(backgrounds.map((background) => background.onModuleDestroy()));
      await (engine ? engine.close() : sql.close());
    },
  };
}

/** A callback the sandbox would have sent. */
export interface SentCallback {
  method: string;
  url: string;
  body: Record<string, unknown>;
}

/**
 * A Background whose timers run only when the test says, in the order they are due, and whose callbacks are kept
 * instead of sent: what the sandbox does later, and whether it calls back, without waiting for either.
 */
export class SteppedBackground {
  readonly callbacks: SentCallback[] = [];
  private timers: Array<{ delayMs: number; work: () => Promise<void> }> = [];

  later(delayMs: number, work: () => Promise<void>): void {
    this.timers.push({ delayMs, work });
  }

  /** The delays of the timers set and not yet run, in the order set. */
  get pendingDelays(): number[] {
    return this.timers.map((timer) => timer.delayMs);
  }

  async sleep(): Promise<void> {}

  async callback(method: string, url: string, body: unknown): Promise<void> {
    this.callbacks.push({ method, url, body: body as Record<string, unknown> });
  }

  /** Runs every timer set so far (and those they set), soonest due first. */
  async runAll(): Promise<void> {
    while (this.timers.length > 0) {
      const due = [...this.timers].sort((a, b) => a.delayMs - b.delayMs);
      this.timers = [];
      for (const timer of due) await timer.work();
    }
  }
}
