import { LeasedTimers } from './leased-timers';
import { future, KINDS, onEveryEngine, past, timerTable } from './timers-test-setup';

onEveryEngine('leased timers', (t) => {
  it('claims a timer once it is due, and not again while the claim holds its lease', async () => {
    const dueAt = past();
    await t.timers.schedule(t.db, 'due', 'expiry', dueAt);
    await t.timers.schedule(t.db, 'later', 'expiry', future());

    const claimed = await t.timers.claimDue(t.db, 10);
    expect(claimed).toEqual([{ internalReference: 'due', kind: 'expiry', dueAt, leaseUntil: expect.any(Date) }]);
    expect(await t.timers.claimDue(t.db, 10)).toEqual([]);
  });

  it('hands each due timer to one of the claims made at the same time', async () => {
    const references = Array.from({ length: 20 }, (_, i) => `ref-${String(i).padStart(2, '0')}`);
    for (const reference of references) await t.timers.schedule(t.db, reference, 'expiry', past());

    const claims = await Promise.all([
      t.timers.claimDue(t.db, 20),
      t.timers.claimDue(t.db, 20),
      t.timers.claimDue(t.db, 20),
    ]);
    expect(
      claims
        .flat()
        .map((timer) => timer.internalReference)
        .sort(),
    ).toEqual(references);
  });

  it('claims no more than the limit, the longest due first', async () => {
    await t.timers.schedule(t.db, 'newer', 'expiry', past(1_000));
    await t.timers.schedule(t.db, 'older', 'expiry', past(5_000));

    expect((await t.timers.claimDue(t.db, 1)).map((timer) => timer.internalReference)).toEqual(['older']);
  });

  it('deletes a completed timer', async () => {
    await t.timers.schedule(t.db, 'ref', 'expiry', past());
    const [claimed] = await t.timers.claimDue(t.db, 10);
    await t.timers.complete(t.db, claimed);
    expect(await t.rows()).toEqual([]);
  });

  it('keeps a timer re-scheduled while it fired, at its new time', async () => {
    await t.timers.schedule(t.db, 'ref', 'expiry', past());
    const [claimed] = await t.timers.claimDue(t.db, 10);
    const rescheduled = future();
    await t.timers.schedule(t.db, 'ref', 'expiry', rescheduled);

    await t.timers.complete(t.db, claimed);
    await t.timers.retryAt(t.db, claimed, past());
    expect(await t.rows()).toEqual([{ internalReference: 'ref', kind: 'expiry', dueAt: rescheduled }]);
    expect(await t.timers.claimDue(t.db, 10)).toEqual([]);
  });

  it('gives a timer whose lease ran out to the next claim, and ignores the stale claim', async () => {
    // A process that died mid-fire: its claim's lease runs out and another process claims it.
    // (Made an hour ago, not a moment ago: a claim within the same millisecond would hold the same lease.)
    await t.timers.schedule(t.db, 'ref', 'expiry', past());
    const [stale] = await t.ageClaims(await t.timers.claimDue(t.db, 10));
    const [fresh] = await t.timers.claimDue(t.db, 10);
    expect(fresh.internalReference).toBe('ref');

    await t.timers.complete(t.db, stale);
    expect(await t.rows()).toHaveLength(1);
    await t.timers.complete(t.db, fresh);
    expect(await t.rows()).toEqual([]);
  });

  it('fires a claimed timer again at the time the claim asks for, keeping when it was due', async () => {
    const dueAt = past(60_000);
    await t.timers.schedule(t.db, 'again-now', 'poll', dueAt);
    await t.timers.schedule(t.db, 'again-later', 'poll', dueAt);
    const claimed = await t.timers.claimDue(t.db, 10);
    for (const timer of claimed)
      await t.timers.retryAt(t.db, timer, timer.internalReference === 'again-now' ? past() : future());

    const [again, ...others] = await t.timers.claimDue(t.db, 10);
    expect(others).toEqual([]);
    expect(again).toMatchObject({ internalReference: 'again-now', kind: 'poll', dueAt });
  });

  it('schedules and cancels with the transaction that applies the event', async () => {
    await expect(
      t.db.transaction(async (tx) => {
        await t.timers.schedule(tx, 'rolled-back', 'expiry', past());
        throw new Error('projection failed');
      }),
    ).rejects.toThrow('projection failed');
    expect(await t.rows()).toEqual([]);

    await t.db.transaction(async (tx) => {
      for (const reference of ['a', 'b']) {
        await t.timers.schedule(tx, reference, 'expiry', future());
        await t.timers.schedule(tx, reference, 'poll', future());
      }
    });
    await t.db.transaction((tx) => t.timers.cancel(tx, 'a', ['expiry']));
    expect((await t.rows()).map(({ internalReference, kind }) => `${internalReference}:${kind}`)).toEqual([
      'a:poll',
      'b:expiry',
      'b:poll',
    ]);
    await t.db.transaction((tx) => t.timers.cancel(tx, 'b'));
    expect((await t.rows()).map(({ internalReference, kind }) => `${internalReference}:${kind}`)).toEqual(['a:poll']);
  });

  it('applies a process’s changes in order: a cancel after a schedule removes it, a later schedule replaces the time', async () => {
    const at = future().toISOString();
    await t.db.transaction((tx) =>
      t.timers.apply(tx, [
        {
          internalReference: 'c',
          changes: [
            { type: 'Schedule', kind: 'expiry', at },
            { type: 'Schedule', kind: 'poll', at },
            { type: 'Cancel', kinds: ['expiry'] },
          ],
        },
      ]),
    );
    expect((await t.rows()).map(({ internalReference, kind }) => `${internalReference}:${kind}`)).toEqual(['c:poll']);
    await t.db.transaction((tx) => t.timers.apply(tx, [{ internalReference: 'c', changes: [{ type: 'Cancel' }] }]));
    expect(await t.rows()).toEqual([]);
  });

  it('applies many aggregates’ changes at once (a projection’s page), each aggregate’s in its order', async () => {
    const soon = future(60_000);
    const later = future(120_000);
    await t.timers.schedule(t.db, 'kept', 'poll', soon);
    await t.timers.schedule(t.db, 'ended', 'expiry', soon);
    await t.db.transaction((tx) =>
      t.timers.apply(tx, [
        { internalReference: 'fresh', changes: [{ type: 'Schedule', kind: 'expiry', at: soon.toISOString() }] },
        { internalReference: 'ended', changes: [{ type: 'Cancel' }] },
        { internalReference: 'moved', changes: [{ type: 'Schedule', kind: 'poll', at: soon.toISOString() }] },
        {
          internalReference: 'fresh',
          changes: [
            { type: 'Cancel', kinds: ['expiry'] },
            { type: 'Schedule', kind: 'poll', at: later.toISOString() },
          ],
        },
        { internalReference: 'moved', changes: [{ type: 'Schedule', kind: 'poll', at: later.toISOString() }] },
      ]),
    );
    expect(
      (await t.rows())
        .map(({ internalReference, kind, dueAt }) => `${internalReference}:${kind}@${dueAt.toISOString()}`)
        .sort(),
    ).toEqual([
      `fresh:poll@${later.toISOString()}`,
      `kept:poll@${soon.toISOString()}`,
      `moved:poll@${later.toISOString()}`,
    ]);
  });

  it('re-schedules a timer cancelled and scheduled again while it was being fired: the claim in hand no longer completes it', async () => {
    await t.timers.schedule(t.db, 'ref', 'expiry', past());
    const [claimed] = await t.timers.claimDue(t.db, 10);
    const again = future();
    await t.db.transaction((tx) =>
      t.timers.apply(tx, [
        {
          internalReference: 'ref',
          changes: [{ type: 'Cancel' }, { type: 'Schedule', kind: 'expiry', at: again.toISOString() }],
        },
      ]),
    );
    await t.timers.complete(t.db, claimed);
    expect(await t.rows()).toEqual([{ internalReference: 'ref', kind: 'expiry', dueAt: again }]);
  });

  it('keeps the timers of two tables apart', async () => {
    const other = await timerTable(t.db, 'other_timers');
    await other.schedule(t.db, 'ref', 'expiry', past());

    expect(await t.timers.claimDue(t.db, 10)).toEqual([]);
    expect((await other.claimDue(t.db, 10)).map((timer) => timer.internalReference)).toEqual(['ref']);
  });
});

describe('a timer table name', () => {
  it('must be a plain SQL identifier', () => {
    expect(() => new LeasedTimers('collection_timers', KINDS)).not.toThrow();
    for (const name of ['timers; drop table x', 'Timers', '1timers', 'public.timers', '']) {
      expect(() => new LeasedTimers(name, KINDS)).toThrow(/plain SQL identifier/);
    }
  });
});
