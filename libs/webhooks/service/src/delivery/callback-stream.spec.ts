import type { StreamCallbacksResult } from '@paygate/contracts';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { verifyStandardWebhook } from '@paygate/signing';
import { describeOnAllSqlEngines, describeWithService, uniqueSchema } from '@paygate/testing';
import { signedCallbackHeaders } from './callback-sender';
import { CallbackStream, type StreamEntry } from './callback-stream';
import { DeliveryQueue, type NewDelivery } from './delivery-queue';

const KEY = 'whsk_stream_spec_key';
const body = (ref: string, status = 'COMPLETED') =>
  JSON.stringify({
    event: 'transaction.completed',
    payload: { id: 1, internal_reference: ref, transaction_status: status, merchant_reference: `order-${ref}` },
  });

const entry = (merchantId: string, ref: string): StreamEntry => {
  const text = body(ref);
  return {
    merchantId,
    webhookId: `msg_${ref}`,
    internalReference: ref,
    eventName: 'transaction.completed',
    body: text,
    headers: signedCallbackHeaders(KEY, `msg_${ref}`, text, 1_700_000_000),
  };
};

const unsent = (merchantId: string, ref: string): NewDelivery => ({
  webhookId: `msg_${ref}`,
  merchantId,
  internalReference: ref,
  sequence: 1,
  eventName: 'transaction.completed',
  targetUrl: null,
  body: body(ref),
});

const noKey = async () => null;
const key = async () => KEY;

/**
 * Reads from `after` until `count` callbacks have come. A committed row is read only once every
 * transaction older than it has ended, and on a shared PostgreSQL another test's may still be
 * open, so a read that must find rows waits for them as `paygate listen` does.
 */
async function readUntil(
  stream: CallbackStream,
  after: string,
  count: number,
  signingKey: () => Promise<string | null> = noKey,
): Promise<StreamCallbacksResult> {
  const callbacks: StreamCallbacksResult['callbacks'] = [];
  let cursor = after;
  for (let reads = 0; callbacks.length < count && reads < 10; reads++) {
    const page = await stream.read({ merchantId: 'm1', after: cursor, waitMs: 2_000, limit: 10 }, signingKey);
    callbacks.push(...page.callbacks);
    cursor = page.cursor;
  }
  return { callbacks, cursor };
}

describeOnAllSqlEngines('the callback stream', 'callback_stream', (open) => {
  let close: () => Promise<void>;
  let db: SqlDatabase;
  let stream: CallbackStream;

  beforeEach(async () => {
    ({ db, close } = await open());
    stream = await CallbackStream.open(db);
  });
  afterEach(() => close());

  it('gives a new reader what is recorded after it joined, in order, with the headers as they were sent', async () => {
    await stream.record(entry('m1', 'EARLIER'));
    // A reader joining while a transaction older than EARLIER is still open (another test's) is
    // given EARLIER too, rather than risk missing one that commits late; here it joins after.
    await readUntil(stream, '0-0', 1);
    const joined = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, noKey);
    expect(joined.callbacks).toEqual([]);
    await stream.record(entry('m1', 'A'));
    await stream.record(entry('m1', 'B'));
    const page = await readUntil(stream, joined.cursor, 2);
    expect(page.callbacks.map((callback) => callback.internal_reference)).toEqual(['A', 'B']);
    expect(page.callbacks[0]).toMatchObject({
      webhook_id: 'msg_A',
      event: 'transaction.completed',
      body: body('A'),
      headers: entry('m1', 'A').headers,
    });
    expect(page.cursor).toBe(page.callbacks[1].cursor);
    // Resuming after A gives B again, nothing before it.
    const resumed = await readUntil(stream, page.callbacks[0].cursor, 1);
    expect(resumed.callbacks.map((callback) => callback.internal_reference)).toEqual(['B']);
  });

  it('shows a merchant only its own callbacks', async () => {
    const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, noKey);
    await stream.record(entry('m2', 'THEIRS'));
    await stream.record(entry('m1', 'OURS'));
    const page = await readUntil(stream, cursor, 1);
    expect(page.callbacks.map((callback) => callback.internal_reference)).toEqual(['OURS']);
  });

  it('carries a callback that has no URL to go to, signed when read; a redelivered event adds nothing', async () => {
    const deliveries = await DeliveryQueue.open(db, { timeoutMs: 1_000, retrySchedule: [0], perHostConcurrency: 1 });
    const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, key);
    await deliveries.enqueue([unsent('m1', 'NO_URL')]);
    await deliveries.enqueue([unsent('m1', 'NO_URL')]);
    const page = await readUntil(stream, cursor, 1, key);
    expect(page.callbacks).toHaveLength(1);
    const [callback] = page.callbacks;
    expect(callback).toMatchObject({ webhook_id: 'msg_NO_URL', sent_to_callback_url: false, body: body('NO_URL') });
    expect(verifyStandardWebhook(KEY, callback.headers, callback.body)).toBe(true);
    // A merchant without a signing key has nothing to verify with: skipped, and the cursor moves past it.
    const keyless = await stream.read({ merchantId: 'm1', after: cursor, waitMs: 0, limit: 10 }, noKey);
    expect(keyless).toEqual({ callbacks: [], cursor: callback.cursor });
  });

  it('gets nothing from a queue that does not stream (a read-model rebuild)', async () => {
    const rebuild = await DeliveryQueue.open(db, {
      timeoutMs: 1_000,
      retrySchedule: [0],
      perHostConcurrency: 1,
      streamUnsent: false,
    });
    const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, key);
    await rebuild.enqueue([unsent('m1', 'REBUILT')]);
    expect((await stream.read({ merchantId: 'm1', after: cursor, waitMs: 0, limit: 10 }, key)).callbacks).toEqual([]);
  });

  it('answers a waiting read as soon as this process records a callback', async () => {
    const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, noKey);
    const waiting = stream.read({ merchantId: 'm1', after: cursor, waitMs: 30_000, limit: 10 }, noKey);
    await stream.record(entry('m1', 'LATER'));
    expect((await waiting).callbacks.map((callback) => callback.internal_reference)).toEqual(['LATER']);
  });

  it('answers waiting reads with nothing once stopped, and says when a cursor is not its own', async () => {
    const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, noKey);
    const waiting = stream.read({ merchantId: 'm1', after: cursor, waitMs: 30_000, limit: 10 }, noKey);
    stream.stop();
    expect(await waiting).toEqual({ callbacks: [], cursor });
    expect(
      (await stream.read({ merchantId: 'm1', after: 'yesterday', waitMs: 0, limit: 10 }, noKey)).invalidCursor,
    ).toBe(true);
  });

  it('forgets entries past the retention', async () => {
    await stream.record(entry('m1', 'OLD'));
    expect(await stream.prune(60_000)).toBe(0);
    expect(await stream.prune(0)).toBe(1);
  });
});

describeWithService('postgres', 'the callback stream on PostgreSQL, with writers in parallel', (url) => {
  it('never passes a callback whose transaction commits after a later one', async () => {
    const schema = uniqueSchema('callback_stream_order');
    const db = await openSqlDatabase(url, { schema });
    try {
      const stream = await CallbackStream.open(db);
      const { cursor } = await stream.read({ merchantId: 'm1', waitMs: 0, limit: 10 }, noKey);
      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let recorded!: () => void;
      const inTransaction = new Promise<void>((resolve) => (recorded = resolve));
      // FIRST takes its position inside a transaction that stays open while SECOND commits.
      const slow = db.transaction(async (tx) => {
        await stream.record(entry('m1', 'FIRST'), tx);
        recorded();
        await held;
      });
      await inTransaction;
      await stream.record(entry('m1', 'SECOND'));
      expect((await stream.read({ merchantId: 'm1', after: cursor, waitMs: 0, limit: 10 }, noKey)).callbacks).toEqual(
        [],
      );
      commit();
      await slow;
      const page = await readUntil(stream, cursor, 2);
      expect(page.callbacks.map((callback) => callback.internal_reference)).toEqual(['FIRST', 'SECOND']);
    } finally {
      await db.query(`drop schema ${schema} cascade`);
      await db.close();
    }
  });
});
