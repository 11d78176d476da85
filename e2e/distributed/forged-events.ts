import { randomUUID } from 'node:crypto';
import { COLLECTION_INTEGRATION_EVENTS } from '@paygate/contracts';
import { SqlEventStore } from '@paygate/event-store';
import { integrationTopic, relayMessage } from '@paygate/messaging';
import { openSqlDatabase } from '@paygate/sql';
import {
  bareKafkaProducer,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  walletOf,
  walletShows,
} from '@paygate/testing';
import type { AppProcess } from './processes';

/**
 * Runs inside the distributed suite: `layout()` gives its gateway, its service-payments, the
 * layout's store (STORE_URL) and broker.
 */
export function forgedEventsSuite(
  layout: () => { gateway: string; servicePayments: AppProcess; storeUrl: string; brokerUrl: string },
): void {
  it('a collection event forged on Kafka credits no wallet: service-payments reads each event back from the store', async () => {
    const { gateway, servicePayments, storeUrl, brokerUrl } = layout();
    const client = await PaygateClient.withNewMerchant(gateway);
    const initialized = await client.initialize(mobileMoneyRequest());
    const ref = String(initialized.body.data.internal_reference);
    expect((await client.confirm(ref)).status).toBe(202);
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    const credited = await eventually(
      async () => {
        const wallet = await walletOf(client);
        return wallet.balance > 0 ? wallet : undefined;
      },
      30_000,
      'the completed collection to be credited',
    );

    // What anyone who can write to the broker could send: the genuine settlement, as a new collection's.
    const sql = await openSqlDatabase(storeUrl);
    const forger = bareKafkaProducer(brokerUrl);
    try {
      const stream = await (await SqlEventStore.create(sql)).readStream(`collection-${ref}`);
      const settled = stream.find((event) => event.type === COLLECTION_INTEGRATION_EVENTS.settled);
      if (!settled) throw new Error(`no ${COLLECTION_INTEGRATION_EVENTS.settled} in collection-${ref}`);
      const forgedRef = `PGF${ref.slice(3)}`;
      const forged = {
        ...settled,
        id: randomUUID(),
        streamName: `collection-${forgedRef}`,
        revision: 0,
        data: JSON.parse(JSON.stringify(settled.data).replaceAll(ref, forgedRef)) as Record<string, unknown>,
      };
      await forger.connect();
      await forger.send({ topic: integrationTopic('collections'), messages: [relayMessage(forged)] });
    } finally {
      await forger.disconnect();
      await sql.close();
    }

    await eventually(
      async () => {
        const metrics = await (await fetch(`${servicePayments.url}/metrics`)).text();
        return /^paygate_kafka_messages_refused_total\{reason="not_in_store"\} [1-9]/m.test(metrics) ? true : undefined;
      },
      30_000,
      'service-payments to refuse the forged event',
    );
    await walletShows(
      client,
      { balance: credited.balance, available_balance: credited.available_balance },
      'the genuine credit alone',
    );
    expect(servicePayments.output()).toMatch(/"message":"Kafka message refused: it names no event the store holds"/);
  });
}
