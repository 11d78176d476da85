/**
 * Chaos soak of the distributed layout (docs/operations.md, Reliability): `npm run soak`.
 *
 *   SOAK_SECONDS=600            load duration; faults are injected meanwhile
 *   SOAK_KILL_EVERY_MS=20000    a random app is killed with SIGKILL (and restarted) about this often
 *   SOAK_BROKER_OUTAGE_MS=30000 the soak's broker stopped this long at 30 % of the run, then started with its data
 *   SOAK_DB_OUTAGE_MS=30000     the database cut off this long at 65 % of the run
 *   SOAK_DB_CUT=hold|refuse     during the cut, new database connections are held (default) or refused
 *   SOAK_SETTLE_SECONDS=180     how long the system may take to settle after the load
 *   SOAK_RATE=3                 collections started per second, and a refund or payout beside every fourth
 *   SOAK_MERCHANTS=4
 *   SOAK_KAFKA_PORT=19092, SOAK_KAFKA_CONTROLLER_PORT=19093, SOAK_KAFKA_DATA_DIR=/tmp/paygate-kafka-soak
 *                               the soak's own broker (scripts/kafka.sh), fresh on every run
 *   STORE_URL=postgres://root@127.0.0.1:5432/test
 *                               PostgreSQL; the soak creates a fresh database on that server and drops it
 *
 * Prints one line per check and `Soak: … passed` or `… FAILED`; exits 0 only when it passed.
 */
import { formatResult, Soak, soakOptionsFromEnv } from './soak';

async function main(): Promise<number> {
  const soak = new Soak(soakOptionsFromEnv());
  let interrupted = false;
  // Interrupted: stop what it started and drop its database; a second signal, or a minute, kills it all at once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) {
        soak.killNow();
        process.exit(130);
      }
      interrupted = true;
      process.stderr.write(`soak: ${signal}: stopping everything it started\n`);
      setTimeout(() => {
        soak.killNow();
        process.exit(130);
      }, 60_000).unref();
      void soak.cleanUp().finally(() => process.exit(130));
    });
  }
  const result = await soak.run();
  process.stdout.write(`${formatResult(result)}\n`);
  return result.report.passed ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`soak: ${error.stack ?? error.message}\n`);
    process.exit(2);
  },
);
