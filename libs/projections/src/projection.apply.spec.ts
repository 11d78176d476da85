import { createLogger } from '@paygate/logging';
import { openMessaging } from '@paygate/messaging';
import { eventually } from '@paygate/testing';
import { Projection } from './projection';
import { failingOnClose, onEveryEngine, ownerCredits, tallyView } from './projections-test-setup';

/** The Projection running a declared read model: what each event does to its row, once. */
onEveryEngine('Projection', (t) => {
  const applyAll = async (events: Awaited<ReturnType<typeof t.append>>, projection = t.projection) => {
    for (const event of events) await projection.apply(event);
  };

  it('projects each event of a stream into its row, read upcast, at the revision of the last one applied', async () => {
    await applyAll(
      await t.append('a', [
        ['Opened', { owner: 'ann' }],
        ['Added', { amount: 5 }],
        ['tallies.Noted', { note: 'published' }, 1],
        ['Added', { amount: '7' }, 1],
      ]),
    );
    expect(await t.row('a')).toEqual({
      owner: 'ann',
      total: 12,
      state: { owner: 'ann', total: 12, open: true },
      revision: 3,
    });
    expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
  });

  it('changes nothing, and writes nothing alongside, when an event comes again', async () => {
    const events = await t.append('a', [
      ['Opened', { owner: 'ann' }],
      ['Added', { amount: 5 }],
      ['Added', { amount: 7 }],
    ]);
    await applyAll(events);
    await t.projection.apply(events[1]);
    await t.projection.apply(events[2]);
    expect(await t.row('a')).toMatchObject({ total: 12, revision: 2 });
    expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
  });

  it('leaves no row while the events make none, and none for streams or types it does not declare', async () => {
    await applyAll(await t.append('b', [['Added', { amount: 5 }]]));
    await applyAll(await t.append('c', [['tallies.Noted', { note: 'published' }, 1]]));
    const elsewhere = new Projection('elsewhere', [tallyView(`${t.prefix}other-`)], t.db, t.store);
    await applyAll(await t.append('d', [['Opened', { owner: 'dan' }]]), elsewhere);
    for (const id of ['b', 'c', 'd']) expect(await t.row(id)).toBeUndefined();
    expect(await t.db.query('select * from tally_log')).toEqual([]);
  });

  it('writes the row and what goes alongside it in one transaction: a failure leaves both as they were, to be applied again', async () => {
    const { projection: flaky, recover } = failingOnClose(t);
    const events = await t.append('a', [
      ['Opened', { owner: 'ann' }],
      ['Closed', {}],
    ]);
    await flaky.apply(events[0]);
    await expect(flaky.apply(events[1])).rejects.toThrow('disk full');
    expect(await t.row('a')).toMatchObject({ state: { open: true }, revision: 0 });
    expect(await t.log('a')).toEqual(['Opened']);
    recover();
    await flaky.apply(events[1]);
    expect(await t.row('a')).toMatchObject({ state: { open: false }, revision: 1 });
    expect(await t.log('a')).toEqual(['Opened', 'Closed']);
  });

  it("hands each stream to its read model, whose rows are keyed by the stream's name or by the event", async () => {
    const both = new Projection('both', [tallyView(`${t.prefix}t-`), ownerCredits(`${t.prefix}o-`)], t.db, t.store);
    expect(both.streamPrefixes).toEqual([`${t.prefix}t-`, `${t.prefix}o-`]);
    await applyAll(
      await t.append('t-1', [
        ['Opened', { owner: 'ann' }],
        ['Added', { amount: 3 }],
      ]),
      both,
    );
    await applyAll(
      await t.append('o-ann', [
        ['Credited', { owner: 'ann', amount: 40 }, 1],
        ['Credited', { owner: 'ann', amount: 2 }, 1],
      ]),
      both,
    );
    expect(await t.row('1')).toMatchObject({ total: 3, revision: 1 });
    expect(await t.db.query('select owner, cast(total as integer) as total, revision from owner_credits')).toEqual([
      { owner: 'ann', total: 42, revision: 1 },
    ]);
  });

  it("follows its streams as its consumer group, from the group's checkpoint after a restart", async () => {
    const messaging = await openMessaging(
      'inproc://',
      { store: t.store, sql: t.db, log: createLogger('projections-test', 'error') },
      { clientId: 'projections-test' },
    );
    const projection = new Projection(`tallies-${t.prefix}`, [tallyView(t.prefix)], t.db, t.store);
    try {
      let consumer = await projection.start(messaging.events);
      await t.append('a', [
        ['Opened', { owner: 'ann' }],
        ['Added', { amount: 5 }],
      ]);
      await eventually(async () => ((await t.row('a'))?.revision === 1 ? true : undefined));
      await consumer.stop();
      await t.append('a', [['Added', { amount: 7 }]]);
      consumer = await projection.start(messaging.events);
      await eventually(async () => ((await t.row('a'))?.revision === 2 ? true : undefined));
      await consumer.stop();
      expect(await t.row('a')).toMatchObject({ total: 12 });
      expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
    } finally {
      await messaging.close();
    }
  });
});
