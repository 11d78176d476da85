import { SQLITE_NOW } from '@paygate/sql';
import { EARLIER_UNSETTLED } from './postgres-dialect';
import type { AddedDelivery, StreamRow, WebhooksDialect } from './webhooks-dialect';

/*
 * SQLite runs one transaction at a time, its write lock taken as it begins: claims are serialised
 * already, and a reader between transactions sees every row up to the last position, none after.
 * Times are ISO text (SQLITE_NOW), those ahead computed here (the process is the database's
 * only clock); `awaits` is a JSON array; many rows travel as one JSON array parameter; there are
 * no writes inside WITH.
 */

/** `ms` from now, as SQLite keeps times here. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

export const SQLITE_DIALECT: WebhooksDialect = {
  lockClaims: async () => undefined,

  ready: `(d.next_attempt_at <= ${SQLITE_NOW}
    and not ${EARLIER_UNSETTLED}
    and (json_array_length(d.awaits) = 0 or exists (
      select 1 from webhook_deliveries cause
      where cause.internal_reference = d.internal_reference and cause.event_name in (select value from json_each(d.awaits)))))`,

  async enqueue(client, deliveries, stream) {
    // `where true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
    const inserted = await client.query<AddedDelivery & { merchant_id: string; event_name: string; body: string }>(
      `insert into webhook_deliveries
         (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error,
          next_attempt_at, correlation_id, traceparent)
       select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value -> 5, value ->> 6, value ->> 7, value ->> 8,
              case when value ->> 7 is null then 'undeliverable' else 'pending' end, value ->> 9, value ->> 10, value ->> 11, value ->> 12
       from json_each($1) where true
       on conflict (webhook_id) do nothing
       returning webhook_id, merchant_id, internal_reference, event_name, body, target_host, next_attempt_at, state`,
      [
        JSON.stringify(
          deliveries.map((d) => [
            d.webhookId,
            d.merchantId,
            d.internalReference,
            d.sequence,
            d.eventName,
            d.awaits,
            d.targetUrl,
            d.targetHost,
            d.body,
            d.lastError,
            fromNow(d.delayMs),
            d.correlationId,
            d.traceparent,
          ]),
        ),
      ],
    );
    const unsent = inserted.filter((row) => row.state === 'undeliverable');
    if (stream && unsent.length > 0)
      await client.query(
        `insert into webhook_stream (merchant_id, webhook_id, internal_reference, event_name, body, headers, sent)
         select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, null, 0 from json_each($1)`,
        [
          JSON.stringify(
            unsent.map((row) => [row.merchant_id, row.webhook_id, row.internal_reference, row.event_name, row.body]),
          ),
        ],
      );
    return inserted;
  },

  async markDelivering(tx, claims) {
    await tx.query(
      `update webhook_deliveries set state = 'delivering', claim_token = u.value ->> 1, lease_until = u.value ->> 1
       from json_each($1) u where webhook_id = u.value ->> 0`,
      [JSON.stringify(claims.map((claim) => [claim.webhookId, claim.token]))],
    );
  },

  async recordAttempts(tx, attempts) {
    await tx.query(
      `insert into webhook_attempts (webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error)
       select a.value ->> 0, coalesce((select max(attempt) from webhook_attempts w where w.webhook_id = a.value ->> 0), 0)
                + row_number() over (partition by a.value ->> 0 order by a.key),
              a.value ->> 1, a.value ->> 2, a.value ->> 3, a.value ->> 4, a.value ->> 5
       from json_each($1) a`,
      [
        JSON.stringify(
          attempts.map((a) => [
            a.webhookId,
            a.startedAt.toISOString(),
            a.durationMs,
            a.statusCode,
            a.responseExcerpt,
            a.error,
          ]),
        ),
      ],
    );
  },

  applyOutcomes: (tx, outcomes) =>
    tx.query(
      `update webhook_deliveries as d
       set state = u.value ->> 1, attempts = u.value ->> 2, next_attempt_at = u.value ->> 3,
           delivered_at = case when u.value ->> 1 = 'delivered' then ${SQLITE_NOW} else d.delivered_at end,
           last_status = u.value ->> 4, last_error = u.value ->> 5, claim_token = null, lease_until = null
       from json_each($1) u
       where d.webhook_id = u.value ->> 0
       returning webhook_id, next_attempt_at`,
      [JSON.stringify(outcomes.map((u) => [u.webhookId, u.state, u.attempts, fromNow(u.delayMs), u.status, u.error]))],
    ),

  // Kept to the millisecond as ISO text already.
  createdAtExact: 'created_at',

  queueStats: `select count(*) filter (where state = 'pending') as pending,
            count(*) filter (where state = 'delivering') as delivering,
            (julianday('now') - julianday(min(next_attempt_at) filter (where state = 'pending' and next_attempt_at <= ${SQLITE_NOW}))) * 86400.0
              as oldest_due_seconds
     from webhook_deliveries where state in ('pending', 'delivering')`,

  streamAfter: (client, merchantId, [, position], limit) =>
    client.query<StreamRow>(
      `select 0 as transaction_id, position, webhook_id, internal_reference, event_name, body, headers, sent
       from webhook_stream where merchant_id = $1 and position > $2 order by position limit $3`,
      [merchantId, Number(position), limit],
    ),

  async streamEnd(client) {
    const [row] = await client.query<{ last: number }>('select coalesce(max(position), 0) as last from webhook_stream');
    return `0-${row.last}`;
  },

  // At or before the cutoff: times here are to the millisecond, so one written this millisecond has aged the retention.
  async pruneStream(client, retentionMs) {
    const rows = await client.query('delete from webhook_stream where created_at <= $1 returning position', [
      fromNow(-retentionMs),
    ]);
    return rows.length;
  },
};
