import { onEveryEngine } from './projections-test-setup';

/**
 * A row missing past its stream's first event (a projection that started late) is made from the
 * stream's earlier events. On PGlite, whose one connection the transaction holds, these tests
 * finishing at all shows the stream is not read from inside the transaction: such a read would
 * wait for the transaction, which would wait for it (the test timeout would end it).
 */
onEveryEngine('Projection, a missing row', (t) => {
  it("is made by folding the stream's earlier events, and the event applied to it; only that event writes alongside", async () => {
    const events = await t.append('a', [
      ['Opened', { owner: 'ann' }],
      ['Added', { amount: 5 }],
      ['tallies.Noted', {}, 1],
      ['Added', { amount: '7' }, 1],
    ]);
    await t.projection.apply(events[3]);
    expect(await t.row('a')).toEqual({
      owner: 'ann',
      total: 12,
      state: { owner: 'ann', total: 12, open: true },
      revision: 3,
    });
    expect(await t.log('a')).toEqual(['Added']);
  });

  it('then goes on from there, and an earlier event arriving late changes nothing', async () => {
    const events = await t.append('a', [
      ['Opened', { owner: 'ann' }],
      ['Added', { amount: 5 }],
      ['Closed', {}],
    ]);
    await t.projection.apply(events[1]);
    await t.projection.apply(events[0]);
    await t.projection.apply(events[2]);
    expect(await t.row('a')).toMatchObject({ total: 5, state: { open: false }, revision: 2 });
    expect(await t.log('a')).toEqual(['Added', 'Closed']);
  });

  it('is made for several streams at once, each from its own events', async () => {
    const late = await Promise.all(
      ['a', 'b', 'c'].map(
        async (id, i) =>
          (
            await t.append(id, [
              ['Opened', { owner: id }],
              ['Added', { amount: i + 1 }],
            ])
          )[1],
      ),
    );
    await Promise.all(late.map((event) => t.projection.apply(event)));
    expect(await Promise.all(['a', 'b', 'c'].map(async (id) => (await t.row(id))?.total))).toEqual([1, 2, 3]);
  });
});
