import { describeWithService, serviceUrl } from '@paygate/testing';
import { ensureBuilt } from '../local/ensure-built';
import { formatResult, Soak, soakOptionsFromEnv } from './soak';

/**
 * Issue 17, item 4: the chaos soak, short. The soak runs its own Kafka broker (scripts/kafka.sh
 * on ports of its own, so the suites' broker is never restarted) and its own database on the
 * PostgreSQL of STORE_URL; it needs Kafka's tooling, so it runs where the Kafka suites run.
 * SOAK_SECONDS and the other SOAK_* variables (tools/soak/main.ts) override the short run's.
 * Declared by soak.spec.ts, which always has tests of its own.
 */
export function chaosSoakSuite(): void {
  describeWithService('kafka', 'chaos soak of the distributed layout (short run)', () => {
    const options = soakOptionsFromEnv({
      SOAK_SECONDS: '120',
      SOAK_BROKER_OUTAGE_MS: '15000',
      SOAK_DB_OUTAGE_MS: '15000',
      ...process.env,
    });
    let soak: Soak | undefined;

    beforeAll(() => {
      if (!serviceUrl('postgres')) throw new Error('the soak needs STORE_URL=postgres://… as well as Kafka');
      ensureBuilt();
    }, 180_000);

    afterAll(() => soak?.cleanUp(), 120_000);

    it(
      'under kills, a broker restart and a database cut: nothing lost, no PRN paid twice, no refund or payout sent twice or misreported, the ledger balanced, every callback once, in order, signed',
      async () => {
        soak = new Soak(options);
        const result = await soak.run();
        process.stderr.write(`${formatResult(result)}\n`);
        expect(result.report.figures).toMatchObject({
          lost: 0,
          neverAcknowledged: 0,
          prnsPaidTwice: 0,
          prnsMisreported: 0,
          ledgerSum: 0,
          ledgerMismatches: 0,
          callbacksMissing: 0,
          duplicateCallbacks: 0,
          unexpectedCallbacks: 0,
          outOfOrder: 0,
          invalidSignatures: 0,
          moneyOutLost: 0,
          moneyOutDisagreeing: 0,
          moneyOutHoldMismatches: 0,
          moneyOutUnexpectedAnswers: 0,
        });
        expect(result.report.figures.final).toBe(result.report.figures.acknowledged);
        expect(result.report.figures.moneyOutAccepted).toBeGreaterThan(0);
        expect(result.report.figures.moneyOutFinal).toBe(result.report.figures.moneyOutAccepted);
        expect(result.report.failures).toEqual([]);
      },
      // Start-up, the load, settling (at most SOAK_SETTLE_SECONDS) and stopping everything.
      (options.seconds + options.settleSeconds + 300) * 1000,
    );
  });
}
