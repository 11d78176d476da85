import { itemsTable, type Use, type Window } from './cost-table';

/** An app's use: CPU in clock ticks (hundredths of a second), statements by kind, inbound requests, Kafka messages. */
const app = (name: string, ticks: number, sql: Record<string, number>, http = 0, kafka = 0): Use => ({
  name,
  role: 'app',
  ticks,
  counters: { sql: new Map(Object.entries(sql)), http, produced: kafka, fetched: kafka },
});
const external = (name: string, ticks?: number): Use => ({ name, role: 'external', ticks });
const bench = (ticks: number): Use => ({ name: 'bench (payers, receiver)', role: 'bench', ticks });
const window = (...uses: Use[]): Window => ({ seconds: 20, uses });

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());

describe("itemsTable: a row per kind of item, what Paygate's processes spent on one", () => {
  it("divides the apps' and PostgreSQL's CPU and the apps' statements by the items, leaving the bench out", () => {
    const [header, , row] = itemsTable([
      {
        item: 'refund',
        items: 4,
        window: window(
          app('gateway', 30, { 'log-read': 4 }, 6),
          app('service-payments', 10, { append: 8, 'log-read': 4, webhooks: 2 }),
          external('PostgreSQL', 20),
          bench(50),
        ),
      },
    ]).map(cells);
    expect(header).toEqual(['item', 'CPU ms', 'append', 'log-read', 'webhooks', 'SQL total', 'HTTP in']);
    // (30 + 10 + 20) ticks = 600 ms over 4 refunds; 18 statements and 6 requests over 4.
    expect(row).toEqual(['refund', '150', '2.0', '2.0', '0.50', '4.5', '1.5']);
  });

  it("gives every row the columns of the kinds any row used, in the cost table's order, and Kafka's when any has it", () => {
    const [header, , refund, payout] = itemsTable([
      { item: 'refund', items: 2, window: window(app('standalone', 4, { sandbox: 2 })) },
      { item: 'payout', items: 1, window: window(app('standalone', 1, { append: 3 }, 0, 2)) },
    ]).map(cells);
    expect(header).toEqual([
      'item',
      'CPU ms',
      'append',
      'sandbox',
      'SQL total',
      'HTTP in',
      'Kafka produced',
      'Kafka fetched',
    ]);
    expect(refund).toEqual(['refund', '20.0', '0', '1.0', '1.0', '0', '0', '0']);
    expect(payout).toEqual(['payout', '10.0', '3.0', '0', '3.0', '0', '2.0', '2.0']);
  });

  it('says when no item completed, and names a process it could not find rather than counting it as idle', () => {
    const [, , none, partial] = itemsTable([
      { item: 'refund', items: 0, window: window(app('standalone', 5, { append: 1 })) },
      { item: 'payout', items: 1, window: window(app('service-payments', 3, { append: 1 }), external('Kafka')) },
    ]).map(cells);
    expect(none).toEqual(['refund', 'none completed']);
    expect(partial.slice(0, 2)).toEqual(['payout', '30.0 (Kafka not found)']);
  });
});
