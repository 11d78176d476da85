import type { RecordedEvent } from '@paygate/event-store';
import { failingOnClose, onEveryEngine } from './projections-test-setup';

/**
 * A page of events (what one read of the store brings) applied at once: the same rows as one event at a time, in one
 * transaction.
 */
onEveryEngine('Projection, a page at a time', (t) => {
  /** Two streams' events interleaved, as they sit in the store's global order. */
  const interleaved = async (): Promise<RecordedEvent[]> => {
    const a = await t.append('a', [
      ['Opened', { owner: 'ann' }],
      ['Added', { amount: 5 }],
      ['tallies.Noted', { note: 'published' }, 1],
      ['Added', { amount: 7 }],
    ]);
    const b = await t.append('b', [
      ['Opened', { owner: 'bob' }],
      ['Closed', {}],
    ]);
    return [a[0], b[0], a[1], a[2], b[1], a[3]];
  };

  it('gives each row what one event at a time gives, and writes alongside for every change', async () => {
    await t.projection.applyPage(await interleaved());
    expect(await t.row('a')).toEqual({
      owner: 'ann',
      total: 12,
      state: { owner: 'ann', total: 12, open: true },
      revision: 3,
    });
    expect(await t.row('b')).toMatchObject({ owner: 'bob', state: { open: false }, revision: 1 });
    expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
    expect(await t.log('b')).toEqual(['Opened', 'Closed']);
  });

  it('changes nothing when the page comes again, or a page overlapping it', async () => {
    const page = await interleaved();
    await t.projection.applyPage(page);
    await t.projection.applyPage(page);
    await t.projection.applyPage(page.slice(2));
    expect(await t.row('a')).toMatchObject({ total: 12, revision: 3 });
    expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
    expect(await t.log('b')).toEqual(['Opened', 'Closed']);
  });

  it("brings a row part-way along from a page that starts at its stream's first event, writing alongside only the events past it", async () => {
    const page = await interleaved();
    await t.projection.applyPage(page.slice(0, 3));
    expect(await t.row('a')).toMatchObject({ total: 5, revision: 1 });
    await t.projection.applyPage(page);
    expect(await t.row('a')).toEqual({
      owner: 'ann',
      total: 12,
      state: { owner: 'ann', total: 12, open: true },
      revision: 3,
    });
    expect(await t.log('a')).toEqual(['Opened', 'Added', 'Added']);
    expect(await t.log('b')).toEqual(['Opened', 'Closed']);
  });

  it('writes the whole page or none of it: a failure on one stream leaves every row as it was, to be applied again', async () => {
    const { projection: flaky, recover } = failingOnClose(t);
    const page = await interleaved();
    await expect(flaky.applyPage(page)).rejects.toThrow('disk full');
    expect([await t.row('a'), await t.row('b')]).toEqual([undefined, undefined]);
    expect([await t.log('a'), await t.log('b')]).toEqual([[], []]);
    recover();
    await flaky.applyPage(page);
    expect(await t.row('a')).toMatchObject({ total: 12, revision: 3 });
    expect(await t.row('b')).toMatchObject({ state: { open: false }, revision: 1 });
  });

  it("folds a stream whose row is missing past its first event, and applies the page's other streams as well", async () => {
    const late = await t.append('late', [
      ['Opened', { owner: 'lea' }],
      ['Added', { amount: 5 }],
      ['Added', { amount: 2 }],
    ]);
    const fresh = await t.append('fresh', [['Opened', { owner: 'fay' }]]);
    await t.projection.applyPage([late[1], fresh[0], late[2]]);
    expect(await t.row('late')).toMatchObject({ owner: 'lea', total: 7, revision: 2 });
    expect(await t.row('fresh')).toMatchObject({ owner: 'fay', total: 0, revision: 0 });
    // Only the page's events write alongside: the folded ones were applied before, elsewhere.
    expect(await t.log('late')).toEqual(['Added', 'Added']);
    expect(await t.log('fresh')).toEqual(['Opened']);
  });
});
