/**
 * `paygate events schema`: every event type the services write, at every version, with its
 * JSON Schema; the wallet's version 1, still read through its upcaster, is listed beside 2.
 */
import {
  COLLECTION_INTEGRATION_EVENTS,
  DISBURSEMENTS_INTEGRATION_EVENTS,
  PAYMENTS_INTEGRATION_EVENTS,
} from '@paygate/contracts';
import {
  MONEY_OUT_EVENT_TYPES,
  PAYOUT_DAY_EVENT_TYPES,
  REFUND_ALLOCATION_EVENT_TYPES,
} from '@paygate/disbursements-domain';
import { COLLECTION_EVENT_TYPES } from '@paygate/collections-domain';
import { SERVICE_PAYMENT_EVENT_TYPES, WALLET_EVENT_TYPES } from '@paygate/payments-domain';
import { runCli } from './cli-test-setup';

interface Entry {
  type: string;
  version: number;
  current: boolean;
  currentVersion: number;
  kind: string;
  streamPrefix: string;
  schema: { required: string[]; properties: Record<string, unknown> };
}

async function schemas(...args: string[]): Promise<Entry[]> {
  const run = await runCli(['events', 'schema', ...args], {});
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return (JSON.parse(run.stdout) as { events: Entry[] }).events;
}

describe('paygate events schema', () => {
  it('lists every domain and integration event type at its current version, needing no store', async () => {
    const current = (await schemas()).filter((entry) => entry.current).map((entry) => entry.type);
    const every = [
      COLLECTION_EVENT_TYPES,
      COLLECTION_INTEGRATION_EVENTS,
      SERVICE_PAYMENT_EVENT_TYPES,
      PAYMENTS_INTEGRATION_EVENTS,
      WALLET_EVENT_TYPES,
      MONEY_OUT_EVENT_TYPES,
      REFUND_ALLOCATION_EVENT_TYPES,
      PAYOUT_DAY_EVENT_TYPES,
      DISBURSEMENTS_INTEGRATION_EVENTS,
    ].flatMap((types) => Object.values(types));
    expect(current.sort()).toEqual([...every].sort());
  });

  it('lists both versions of WalletHoldPlaced: version 1 without a purpose, read as version 2', async () => {
    const entries = await schemas('--type', 'WalletHoldPlaced');
    expect(
      entries.map(({ version, current, currentVersion, kind, streamPrefix }) => ({
        version,
        current,
        currentVersion,
        kind,
        streamPrefix,
      })),
    ).toEqual([
      { version: 1, current: false, currentVersion: 2, kind: 'domain', streamPrefix: 'wallet-' },
      { version: 2, current: true, currentVersion: 2, kind: 'domain', streamPrefix: 'wallet-' },
    ]);
    expect(entries[0].schema.required).not.toContain('purpose');
    expect(entries[1].schema.required).toContain('purpose');
    expect(entries[1].schema.properties.purpose).toEqual({ enum: ['FEE', 'PRN_PAYMENT', 'REFUND', 'PAYOUT', 'OTHER'] });
  });

  it('tells integration events from domain events, with the streams they are written to', async () => {
    const [settled] = await schemas('--type', 'collections.CollectionSettled');
    expect(settled).toMatchObject({ version: 1, current: true, kind: 'integration', streamPrefix: 'collection-' });
  });

  it('refuses an event type it does not know with one line', async () => {
    expect(await runCli(['events', 'schema', '--type', 'CollectionExploded'], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: 'paygate: unknown event type "CollectionExploded" (paygate events schema lists them all)\n',
    });
  });
});
