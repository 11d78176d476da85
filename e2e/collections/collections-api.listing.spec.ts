/**
 * GET /v1/collections without merchant_reference: a merchant's collections, newest first, filtered
 * and cursor-paged (docs/api.md, "Listing collections"), against one in-process Paygate on PGlite.
 */
import { cardRequest, eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import { expectEnvelope, expectFieldErrors, initialized, SILENT_MTN, useApiPaygate, type Json } from './api-test-setup';

interface Page {
  collections: Json[];
  next_cursor: string | null;
}

describe('listing collections (GET /v1/collections)', () => {
  const { api } = useApiPaygate();
  /** A merchant of its own, so the list holds exactly what this file created; oldest first. */
  let lister: PaygateClient;
  const created: Json[] = [];

  const page = async (client: PaygateClient, query = ''): Promise<Page> => {
    const answer = await client.request<Page>('GET', `/v1/collections${query}`, { secret: true });
    expectEnvelope(answer, 200);
    return answer.body.data;
  };
  const references = (listed: Page) => listed.collections.map((record) => record.internal_reference);
  /** Every page from `query`, following next_cursor. */
  const allPages = async (query: string): Promise<Json[]> => {
    const seen: Json[] = [];
    let cursor: string | null = null;
    do {
      const listed: Page = await page(lister, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...listed.collections);
      cursor = listed.next_cursor;
    } while (cursor);
    return seen;
  };
  const newestFirst = () => [...created].reverse().map((ack) => ack.internal_reference);

  beforeAll(async () => {
    lister = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Listing merchant');
    const requests = [
      mobileMoneyRequest({ msisdn: SILENT_MTN }),
      cardRequest(),
      mobileMoneyRequest({ require_confirmation: false }),
      mobileMoneyRequest({ msisdn: SILENT_MTN }),
      cardRequest(),
    ];
    for (const request of requests) {
      created.push(await initialized(lister, request));
      // Distinct creation instants, so "newest first" has one answer.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await lister.finalState(created[2].internal_reference as string);
    await eventually(
      async () => {
        const listed = await page(lister, '?limit=100');
        const completed = listed.collections.find(
          (record) => record.internal_reference === created[2].internal_reference,
        );
        return listed.collections.length === created.length && completed?.transaction_status === 'COMPLETED'
          ? true
          : undefined;
      },
      15_000,
      'the five collections in the list, the completed one as COMPLETED',
    );
  });

  it('lists the records newest first, as GET /v1/collections/{internal_reference} shows them', async () => {
    const listed = await page(lister);
    expect(references(listed)).toEqual(newestFirst());
    expect(listed.next_cursor).toBeNull();
    const one = await lister.collection(created[1].internal_reference as string);
    // amount_refunded is read from the disbursements context for one record at a time: GET by reference only.
    const { amount_refunded: refunded, ...record } = one.body.data;
    expect(refunded).toBe(0);
    expect(listed.collections[3]).toEqual(record);
  });

  it('pages with limit and next_cursor, each collection once, in order', async () => {
    const first = await page(lister, '?limit=2');
    expect(references(first)).toEqual(newestFirst().slice(0, 2));
    expect(first.next_cursor).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
    expect((await allPages('?limit=2')).map((record) => record.internal_reference)).toEqual(newestFirst());
  });

  it('a page does not shift when collections are added after the one before it', async () => {
    const first = await page(lister, '?limit=2&transaction_method=MOBILE_MONEY');
    const newer = await initialized(lister, mobileMoneyRequest({ msisdn: SILENT_MTN }));
    await eventually(
      async () =>
        (await page(lister, '?limit=1')).collections[0]?.internal_reference === newer.internal_reference
          ? true
          : undefined,
      15_000,
      'the new collection listed',
    );
    const second = await page(lister, `?limit=2&transaction_method=MOBILE_MONEY&cursor=${first.next_cursor}`);
    // Mobile money, newest first, was created[3], created[2], created[0]: the second page is the last one.
    expect(references(second)).toEqual([created[0].internal_reference]);
    expect(second.next_cursor).toBeNull();
    created.push(newer);
  });

  it('filters by status, method, provider and creation time', async () => {
    const byStatus = await allPages('?status=COMPLETED');
    expect(byStatus.map((record) => record.internal_reference)).toEqual([created[2].internal_reference]);
    const cards = await allPages('?transaction_method=CARD');
    expect(cards.map((record) => record.internal_reference)).toEqual([
      created[4].internal_reference,
      created[1].internal_reference,
    ]);
    expect(await allPages('?provider_code=card_ug')).toEqual(cards);
    expect(await allPages('?status=PENDING&provider_code=mtn_momo_ug&limit=1')).toHaveLength(created.length - 3);

    const { body } = await lister.collection(created[3].internal_reference as string);
    const from = body.data.created_at as string;
    const since = await allPages(`?created_from=${from}`);
    expect(since.map((record) => record.internal_reference)).toEqual(newestFirst().slice(0, created.length - 3));
    const before = await allPages(`?created_to=${encodeURIComponent(from)}`);
    expect(before.map((record) => record.internal_reference)).toEqual(newestFirst().slice(created.length - 3));
    expect(await allPages('?created_from=2000-01-01&created_to=2000-01-02')).toEqual([]);
  });

  it("never lists another merchant's collections", async () => {
    const theirs = references(await page(api.other, '?limit=100'));
    for (const ack of created) expect(theirs).not.toContain(ack.internal_reference);
  });

  it.each([
    ['?status=SETTLED', 'status'],
    ['?status=PENDING&status=FAILED', 'status'],
    ['?transaction_method=BANK', 'transaction_method'],
    ['?provider_code=mtn%20momo', 'provider_code'],
    ['?created_from=yesterday', 'created_from'],
    ['?created_to=2026-02-30T10:00:00Z', 'created_to'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?cursor=not*a*cursor', 'cursor'],
    [`?cursor=${Buffer.from('2026-11-26T10:00:00.000Z|nope').toString('base64url')}`, 'cursor'],
    ['?stauts=PENDING', 'stauts'],
    ['?merchant_reference=', 'merchant_reference'],
  ])('%s answers 400 naming %s', async (query, field) => {
    expectFieldErrors(await lister.request('GET', `/v1/collections${query}`, { secret: true }), [field]);
  });

  it('answers 401 without the secret key', async () => {
    expectEnvelope(await lister.request('GET', '/v1/collections'), 401);
  });
});
