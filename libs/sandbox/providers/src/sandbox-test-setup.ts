import { loadConfig } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import { AppUrl, type Infrastructure } from '@paygate/platform';
import { migrate, openSqlDatabase } from '@paygate/sql';
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

/** The sandbox's tables on PGlite in memory, its settings from `env` (no simulated latency unless given). */
export async function openSandbox(env: Record<string, string> = {}): Promise<SandboxUnderTest> {
  const sql = await openSqlDatabase('pglite://memory');
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
      await sql.close();
    },
  };
}
