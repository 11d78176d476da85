import { loadConfig } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import { Dependencies } from './dependencies';
import { openInfrastructure } from './infrastructure';

const log: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => log,
};

/**
 * A start that fails after its infrastructure opened (a consumer group that does not answer while
 * the broker restarts) is undone and tried again with the same waits (run-app.ts). The chaos soak
 * saw a dispatcher exit 1 there ("stopped while waiting for STORE_URL"): closing the undone
 * infrastructure had stopped the waits the next attempt needed.
 */
describe('infrastructure opened with the waits of a start', () => {
  const config = loadConfig({ STORE_URL: 'pglite://memory' }).platform;

  it('can be closed and opened again with the same waits, as an undone start does', async () => {
    const waits = new Dependencies(log);
    const undone = await openInfrastructure(config, 'spec', log, waits);
    await undone.close();

    expect(waits.stopped).toBe(false);
    const again = await openInfrastructure(config, 'spec', log, waits);
    expect(await again.sql.query('select 1 as answered')).toEqual([{ answered: 1 }]);
    await again.close();
    waits.stop();
    // Two PGlite databases opened one after the other: over a minute on a loaded 2-core CI machine.
  }, 120_000);
});
