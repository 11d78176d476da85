/**
 * Lists benchmark: what the merchant's paged lists cost with a big history. One merchant with
 * BENCH_ROWS collections (1,000,000 by default), as many callback deliveries (each with one
 * attempt) and as many wallet entries, written straight into the read models of a Paygate on
 * PostgreSQL; then, one request at a time, each list's first page, its filtered pages and a page
 * from the middle of its history, through the gateway as a merchant calls it.
 *
 *   STORE_URL=postgres://… npm run bench:lists
 *   BENCH_ROWS=1000000 BENCH_REQUESTS=200      rows per read model, requests per query
 *
 * Standalone on STORE_URL (a fresh schema, dropped afterwards) serves the requests, so a list is
 * the whole path: HTTP, authentication, the query to collections or the dispatcher, the read
 * model's statement. The ceiling in the same run is the bare engine doing the unavoidable read:
 * one page of 20 rows by the list's index, through node-postgres without Paygate.
 */
import { openSqlDatabase, postgresUrlInSchema } from '@paygate/sql';
import { ADMIN_TOKEN, createMerchant, dropSchema, freshSchema, launchStandalone, stopAll } from './apps';
import { met, ms, percentile } from './figures';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const AIM_P99_MS = 50;
/** The dashboard's overview is a page a person waits for, not a list a program pages through. */
const OVERVIEW_AIM_P99_MS = 200;
/** Half of the history: a cursor there reads as deep as a merchant paging through it would. */
const MIDDLE = Math.floor(ROWS / 2);

/** The instant of row `i`: one every 30 s back from now, so newer rows have larger i. */
const instantSql = (i: string) =>
  `to_char((now() - (${ROWS} - ${i}) * interval '30 seconds') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const referenceSql = (i: string) => `'PG' || lpad(${i}::text, 24, '0')`;

async function timed(url: string, headers: Record<string, string>): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 200)}`);
    took.push(performance.now() - started);
  }
  return took.sort((a, b) => a - b);
}

/** A dashboard owner of `merchantId`, invited, with a password set and signed in: the session cookie. */
async function dashboardSession(gateway: string, merchantId: string): Promise<string> {
  const cookies = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(new URL(path, gateway), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: form && new URLSearchParams(form).toString(),
    });
    for (const header of response.headers.getSetCookie()) {
      const [name, ...value] = header.split(';')[0].split('=');
      cookies.set(name, value.join('='));
    }
    const text = await response.text();
    return /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
  };
  const invited = await fetch(`${gateway}/admin/v1/merchants/${merchantId}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ email: 'bench-owner@shop.example.com', role: 'owner' }),
  });
  if (invited.status !== 201) throw new Error(`inviting the dashboard owner answered ${invited.status}`);
  const { data } = (await invited.json()) as { data: { invite_url: string } };
  const password = 'a bench password long enough';
  await send(data.invite_url, { _csrf: await send(data.invite_url), password });
  await send('/dashboard/sign-in', {
    _csrf: await send('/dashboard/sign-in'),
    email: 'bench-owner@shop.example.com',
    password,
  });
  if (!cookies.has('paygate_session')) throw new Error('the bench owner could not sign in to the dashboard');
  return `paygate_session=${cookies.get('paygate_session')}`;
}

const cursor = (...parts: string[]) => Buffer.from(parts.join('|')).toString('base64url');

async function main() {
  const storeUrl = process.env.STORE_URL;
  if (!storeUrl?.startsWith('postgres')) {
    console.log('bench:lists needs STORE_URL=postgres://… (the lists at this size are a PostgreSQL deployment’s)');
    return;
  }
  const schema = freshSchema('lists');
  const layout = await launchStandalone({ STORE_URL: postgresUrlInSchema(storeUrl, schema) });
  const db = await openSqlDatabase(storeUrl, { schema });
  try {
    const gateway = layout.gateways[0].url;
    const merchant = await createMerchant(gateway);
    const headers = { 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey };
    // A real collection's state is the template every row copies, so the records are ones the API would answer.
    const initialize = await fetch(`${gateway}/v1/collections/initialize`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        merchant_reference: 'template',
        transaction_method: 'MOBILE_MONEY',
        provider_code: 'mtn_momo_ug',
        currency: 'UGX',
        amount: 81000,
        msisdn: '256772000004',
        customer_name: 'Jane Doe',
      }),
    });
    if (initialize.status !== 202) throw new Error(`initialize answered ${initialize.status}`);
    let template: { state: unknown } | undefined;
    for (let tries = 0; !template && tries < 200; tries++) {
      [template] = await db.query<{ state: unknown }>('select state from collection_view limit 1');
      if (!template) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!template) throw new Error('the template collection never reached the read model');

    const filling = Date.now();
    await db.query(
      `insert into collection_view (internal_reference, merchant_id, merchant_reference, revision, status,
         transaction_method, provider_code, created_at, currency, request_amount, state)
       select ${referenceSql('i')}, m, 'order-' || i, 1, st, meth, prov, ${instantSql('i')}, 'UGX', 81000,
         jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set($2::jsonb,
           '{initiated,internalReference}', to_jsonb(${referenceSql('i')})),
           '{initiated,merchantReference}', to_jsonb('order-' || i)),
           '{initiated,initiatedAt}', to_jsonb(${instantSql('i')})),
           '{initiated,transactionMethod}', to_jsonb(meth)),
           '{initiated,providerCode}', to_jsonb(prov)),
           '{status}', to_jsonb(st))
       from (select i, $1::text as m,
               case when i % 10 < 6 then 'COMPLETED' when i % 10 < 8 then 'FAILED'
                    when i % 10 = 8 then 'CANCELLED' else 'PENDING' end as st,
               case when i % 4 = 0 then 'CARD' else 'MOBILE_MONEY' end as meth,
               case when i % 4 = 0 then 'card_ug' else 'mtn_momo_ug' end as prov
             from generate_series(1, ${ROWS}) as i) rows`,
      [merchant.id, JSON.stringify(template.state)],
    );
    await db.query(
      `insert into webhook_deliveries (webhook_id, merchant_id, internal_reference, sequence, event_name, target_url,
         target_host, body, state, attempts, next_attempt_at, created_at, delivered_at, last_status)
       select 'msg_' || lpad(i::text, 12, '0'), $1, ${referenceSql('i')}, 1, 'transaction.completed',
         'https://shop.example.com/paygate', 'shop.example.com', '{"event":"transaction.completed"}', 'delivered', 1,
         at, at, at, 200
       from (select i, now() - (${ROWS} - i) * interval '30 seconds' as at from generate_series(1, ${ROWS}) as i) rows`,
      [merchant.id],
    );
    await db.query(
      `insert into webhook_attempts (webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt)
       select webhook_id, 1, created_at, 42, 200, 'ok' from webhook_deliveries where merchant_id = $1`,
      [merchant.id],
    );
    await db.query(
      `insert into wallet_entries (merchant_id, currency, revision, kind, balance_change, available_change, transfers, at,
         internal_reference)
       select $1, 'UGX', i, 'collection_credit', 79785, 79785,
         jsonb_build_array(jsonb_build_object('transferId', 'tr_' || i, 'debitAccount', 'customer_funds:UGX',
           'creditAccount', 'merchant_wallet:' || $1 || ':UGX', 'amount', 79785)),
         ${instantSql('i')}, ${referenceSql('i')}
       from generate_series(1, ${ROWS}) as i`,
      [merchant.id],
    );
    await db.query('analyze');
    console.log(
      `${ROWS.toLocaleString('en')} collections, deliveries (each with an attempt) and wallet entries for one merchant, written in ${((Date.now() - filling) / 1_000).toFixed(0)} s; ${REQUESTS} requests per query, one at a time\n`,
    );

    const [middle] = await db.query<{ created_at: string; internal_reference: string }>(
      `select created_at, internal_reference from collection_view where internal_reference = ${referenceSql(String(MIDDLE))}`,
    );
    const [delivery] = await db.query<{ at: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from webhook_deliveries
       where webhook_id = 'msg_' || lpad($1::text, 12, '0')`,
      [MIDDLE],
    );
    const [entry] = await db.query<{ entry_id: string; at: string }>(
      'select entry_id::text as entry_id, at from wallet_entries where merchant_id = $1 and revision = $2',
      [merchant.id, MIDDLE],
    );
    const queries: Array<[string, string]> = [
      ['collections, first page', '/v1/collections'],
      ['collections, status=FAILED', '/v1/collections?status=FAILED'],
      ['collections, transaction_method=CARD', '/v1/collections?transaction_method=CARD'],
      [
        'collections, provider_code=card_ug&status=PENDING (none)',
        '/v1/collections?provider_code=card_ug&status=PENDING',
      ],
      [
        'collections, transaction_method=CARD&status=PENDING (none)',
        '/v1/collections?transaction_method=CARD&status=PENDING',
      ],
      ['collections, provider_code=airtel_ug (none)', '/v1/collections?provider_code=airtel_ug'],
      [
        'collections, a month of created_from/created_to',
        `/v1/collections?created_from=${middle.created_at.slice(0, 10)}&created_to=${new Date(Date.parse(middle.created_at) + 30 * 86_400_000).toISOString().slice(0, 10)}`,
      ],
      [
        'collections, a page from the middle',
        `/v1/collections?cursor=${cursor(middle.created_at, middle.internal_reference)}`,
      ],
      ['callbacks, first page', '/v1/callbacks'],
      ['callbacks, state=delivered', '/v1/callbacks?state=delivered'],
      ['callbacks, state=abandoned (none)', '/v1/callbacks?state=abandoned'],
      ['callbacks, one transaction', `/v1/callbacks?internal_reference=${middle.internal_reference}`],
      [
        'callbacks, a page from the middle',
        `/v1/callbacks?cursor=${cursor(delivery.at, `msg_${String(MIDDLE).padStart(12, '0')}`)}`,
      ],
      ['wallet transactions, first page', '/v1/wallet/transactions'],
      ['wallet transactions, currency=KES (none)', '/v1/wallet/transactions?currency=KES'],
      [
        'wallet transactions, a page from the middle',
        `/v1/wallet/transactions?cursor=${cursor(entry.at, entry.entry_id)}`,
      ],
    ];

    const ceiling = await openSqlDatabase(storeUrl, { schema });
    const bare: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      await ceiling.query(
        `select state from collection_view where merchant_id = $1 order by created_at desc, internal_reference desc limit 21`,
        [merchant.id],
      );
      bare.push(performance.now() - started);
    }
    await ceiling.close();
    bare.sort((a, b) => a - b);

    console.log('| query | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    console.log(
      `| ceiling: one page of 20 by the index, node-postgres alone | ${ms(percentile(bare, 50))} | ${ms(percentile(bare, 99))} |`,
    );
    let worst = 0;
    for (const [name, path] of queries) {
      const took = await timed(`${gateway}${path}`, headers);
      worst = Math.max(worst, percentile(took, 99));
      console.log(`| ${name} | ${ms(percentile(took, 50))} | ${ms(percentile(took, 99))} |`);
    }
    console.log(
      `\nAim: each list p99 < ${AIM_P99_MS} ms at ${ROWS.toLocaleString('en')} collections: worst ${ms(worst)} ms ${met(worst < AIM_P99_MS)}`,
    );

    // The dashboard's overview counts the last 30 days (86,400 collections at one every 30 s) by day, status and
    // currency; its ceiling is that one statement through node-postgres alone.
    const since = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10) + 'T00:00:00.000Z';
    const activity = await openSqlDatabase(storeUrl, { schema });
    const bareActivity: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      await activity.query(
        `select substr(created_at, 1, 10) as day, status, currency, count(*) as count, sum(request_amount) as amount
         from collection_view where merchant_id = $1 and created_at >= $2 group by 1, 2, 3`,
        [merchant.id, since],
      );
      bareActivity.push(performance.now() - started);
    }
    await activity.close();
    bareActivity.sort((a, b) => a - b);
    const overview = await timed(`${gateway}/dashboard/overview`, {
      cookie: await dashboardSession(gateway, merchant.id),
    });
    console.log('\n| dashboard page | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    console.log(
      `| ceiling: the 30 days' counts by day, node-postgres alone | ${ms(percentile(bareActivity, 50))} | ${ms(percentile(bareActivity, 99))} |`,
    );
    console.log(
      `| overview (30 days, charts, wallet, latest 10) | ${ms(percentile(overview, 50))} | ${ms(percentile(overview, 99))} |`,
    );
    console.log(
      `\nAim: the overview p99 < ${OVERVIEW_AIM_P99_MS} ms (${((percentile(overview, 99) / percentile(bareActivity, 99)) * 100).toFixed(0)}% of its ceiling's p99): ${ms(percentile(overview, 99))} ms ${met(percentile(overview, 99) < OVERVIEW_AIM_P99_MS)}`,
    );
  } finally {
    await db.close();
    await layout.stop();
    await dropSchema(storeUrl, schema);
  }
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
