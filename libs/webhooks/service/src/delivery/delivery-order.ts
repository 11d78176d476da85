import { SqlJobQueue } from '@paygate/jobs';
import { inTextList, textList, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { webhooksDialect } from './webhooks-dialect';

/**
 * The job queue of deliveries: one job per delivery waiting to be sent, key = webhook id, lane = target host, no
 * payload.
 */
export const CALLBACK_QUEUE = new SqlJobQueue('callbacks');

/*
 * The order rule of callback deliveries, checked in one place, the claim (DeliveryQueue.claim),
 * against committed rows (the dialect's `ready`): a transaction's callback to one URL is sent only
 * once every earlier one is settled, and one caused by another stream only once its cause is
 * queued. Whatever makes a job due only makes it due; waking a delivery that waited is always safe.
 */

/**
 * A claimed delivery that may not be sent yet is looked at again this much later, or at once when what it waits for
 * settles.
 */
export const NOT_READY_MS = 1_000;

/**
 * Brings the waiting jobs of these transactions' pending deliveries back to their own time: what they waited for may
 * have happened.
 */
export async function wakeWaiting(client: SqlClient, internalReferences: string[]): Promise<void> {
  if (internalReferences.length === 0) return;
  const rows = await client.query<{ webhook_id: string; next_attempt_at: Date | string }>(
    `select webhook_id, next_attempt_at from webhook_deliveries where internal_reference${inTextList(client, '$1')} and state = 'pending'`,
    [textList(client, internalReferences)],
  );
  await CALLBACK_QUEUE.advance(
    client,
    rows.map((row) => ({ key: row.webhook_id, at: new Date(row.next_attempt_at) })),
  );
}

/**
 * The next callbacks of transactions whose callback settled may be sent now. Woken once the
 * settling has committed and under the claim's lock: a claim that read the earlier callback
 * still in flight has put the next one back by then, so it is brought forward here rather than
 * waiting NOT_READY_MS. Best effort: a callback left waiting is claimed again after that anyway.
 */
export async function wakeAfterSettling(sql: SqlDatabase, internalReferences: string[]): Promise<void> {
  if (internalReferences.length === 0) return;
  await sql
    .transaction(async (tx) => {
      await webhooksDialect(tx).lockClaims(tx);
      await wakeWaiting(tx, internalReferences);
    })
    .catch(() => undefined);
}
