/** JSON lines on stdout, one object per entry; callers never pass secrets or card numbers. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const level = (process.env.LOG_LEVEL ?? 'info') as LogLevel;
  return RANK[level] ?? RANK.info;
}

export function createLogger(component: string, bound: Record<string, unknown> = {}): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[level] < threshold()) return;
    const entry = { time: new Date().toISOString(), level, component, message, ...bound, ...fields };
    process.stdout.write(`${JSON.stringify(entry, (_key, value) => (value instanceof Error ? value.message : value))}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(component, { ...bound, ...fields }),
  };
}
