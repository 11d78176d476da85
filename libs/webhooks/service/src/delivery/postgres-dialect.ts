import type { AddedDelivery, StreamRow, WebhooksDialect } from './webhooks-dialect';

/** The earlier callbacks of `d`'s transaction to its URL still unsettled: `d` waits for them. */
export const EARLIER_UNSETTLED = `exists (
    select 1 from webhook_deliveries earlier
    where earlier.internal_reference = d.internal_reference and earlier.target_url = d.target_url
      and earlier.sequence < d.sequence and earlier.state in ('pending', 'delivering'))`;

/*
 * Rows travel as one array parameter per column, unnested together. The callback stream is read
 * in (transaction_id, position) order below the oldest running transaction, as the event log is,
 * so a reader never passes a row that commits later.
 */
export const POSTGRES_DIALECT: WebhooksDialect = {
  async lockClaims(tx) {
    await tx.query(`select pg_advisory_xact_lock(hashtext('paygate-webhook-claim:' || current_schema()))`);
  },

  ready: `(d.next_attempt_at <= now()
    and not ${EARLIER_UNSETTLED}
    and (cardinality(d.awaits) = 0 or exists (
      select 1 from webhook_deliveries cause
      where cause.internal_reference = d.internal_reference and cause.event_name = any(d.awaits))))`,

  enqueue: (client, deliveries, stream) =>
    client.query<AddedDelivery>(
      `with inserted as (insert into webhook_deliveries
         (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error, next_attempt_at,
          correlation_id, traceparent)
       select d.webhook_id, d.merchant_id, d.internal_reference, d.sequence, d.event_name, string_to_array(d.awaits, ','),
              d.target_url, d.target_host, d.body,
              case when d.target_host is null then 'undeliverable' else 'pending' end, d.last_error,
              now() + d.delay_ms * interval '1 millisecond', d.correlation_id, d.traceparent
       from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[],
                   $13::text[], $14::text[])
         as d (webhook_id, merchant_id, internal_reference, sequence, event_name, target_url, target_host, body, last_error, delay_ms, awaits,
               correlation_id, traceparent)
       on conflict (webhook_id) do nothing
       returning webhook_id, merchant_id, internal_reference, event_name, body, target_host, next_attempt_at, state),
       streamed as (insert into webhook_stream (merchant_id, webhook_id, internal_reference, event_name, body, headers, sent)
         select merchant_id, webhook_id, internal_reference, event_name, body, null, false from inserted where state = 'undeliverable' and $12::boolean)
       select webhook_id, internal_reference, target_host, next_attempt_at, state from inserted`,
      [
        deliveries.map((d) => d.webhookId),
        deliveries.map((d) => d.merchantId),
        deliveries.map((d) => d.internalReference),
        deliveries.map((d) => d.sequence),
        deliveries.map((d) => d.eventName),
        deliveries.map((d) => d.targetUrl),
        deliveries.map((d) => d.targetHost),
        deliveries.map((d) => d.body),
        deliveries.map((d) => d.lastError),
        deliveries.map((d) => d.delayMs),
        // One array per row cannot pass through unnest (it flattens), so each travels as one text.
        deliveries.map((d) => d.awaits.join(',')),
        stream,
        deliveries.map((d) => d.correlationId),
        deliveries.map((d) => d.traceparent),
      ],
    ),

  async markDelivering(tx, claims) {
    await tx.query(
      `update webhook_deliveries d set state = 'delivering', claim_token = u.token, lease_until = u.token::timestamptz
       from unnest($1::text[], $2::text[]) as u(webhook_id, token) where d.webhook_id = u.webhook_id`,
      [claims.map((claim) => claim.webhookId), claims.map((claim) => claim.token)],
    );
  },

  async recordAttempts(tx, attempts) {
    await tx.query(
      `insert into webhook_attempts (webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error)
       select a.webhook_id, coalesce((select max(attempt) from webhook_attempts w where w.webhook_id = a.webhook_id), 0)
                + row_number() over (partition by a.webhook_id order by a.ord),
              a.started_at, a.duration_ms, a.status_code, a.response_excerpt, a.error
       from unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[]) with ordinality
         as a (webhook_id, started_at, duration_ms, status_code, response_excerpt, error, ord)`,
      [
        attempts.map((a) => a.webhookId),
        attempts.map((a) => a.startedAt.toISOString()),
        attempts.map((a) => a.durationMs),
        attempts.map((a) => a.statusCode),
        attempts.map((a) => a.responseExcerpt),
        attempts.map((a) => a.error),
      ],
    );
  },

  applyOutcomes: (tx, outcomes) =>
    tx.query(
      `update webhook_deliveries d
       set state = u.state, attempts = u.attempts, next_attempt_at = now() + u.delay_ms * interval '1 millisecond',
           delivered_at = case when u.state = 'delivered' then now() else d.delivered_at end,
           last_status = u.status, last_error = u.error, claim_token = null, lease_until = null
       from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::int[], $6::text[]) as u(webhook_id, state, attempts, delay_ms, status, error)
       where d.webhook_id = u.webhook_id
       returning d.webhook_id, d.next_attempt_at`,
      [
        outcomes.map((u) => u.webhookId),
        outcomes.map((u) => u.state),
        outcomes.map((u) => u.attempts),
        outcomes.map((u) => u.delayMs),
        outcomes.map((u) => u.status),
        outcomes.map((u) => u.error),
      ],
    ),

  createdAtExact: `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,

  queueStats: `select count(*) filter (where state = 'pending')::int as pending,
            count(*) filter (where state = 'delivering')::int as delivering,
            extract(epoch from now() - min(next_attempt_at) filter (where state = 'pending' and next_attempt_at <= now()))::float8 as oldest_due_seconds
     from webhook_deliveries where state in ('pending', 'delivering')`,

  streamAfter: (client, merchantId, [transaction, position], limit) =>
    client.query<StreamRow>(
      `select transaction_id::text as transaction_id, position::text as position, webhook_id, internal_reference, event_name, body, headers, sent
       from webhook_stream
       where merchant_id = $1 and (transaction_id, position) > ($2::xid8, $3::bigint)
         and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       order by transaction_id, position limit $4`,
      [merchantId, transaction, position, limit],
    ),

  // Everything below the oldest running transaction can be read already.
  async streamEnd(client) {
    const [row] = await client.query<{ horizon: string }>(
      `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`,
    );
    return `${BigInt(row.horizon) - 1n}-${2n ** 63n - 1n}`;
  },

  async pruneStream(client, retentionMs) {
    const rows = await client.query(
      `delete from webhook_stream where created_at < now() - $1::bigint * interval '1 millisecond' returning position`,
      [retentionMs],
    );
    return rows.length;
  },
};
