import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import { CliError } from '@paygate/analytics';
import { SANDBOX_TRIGGER_EVENTS, SANDBOX_TRIGGERS, STANDING_PRN, STANDING_PRN_AMOUNT } from '@paygate/contracts';
import { parseOptions, type Command } from './command';
import { httpUrl, merchantApi, refusal, type MerchantApi } from './merchant-api';

const TRIGGERS = SANDBOX_TRIGGERS;
const TRIGGER_EVENTS = SANDBOX_TRIGGER_EVENTS;

const USAGE = `Usage: paygate trigger <event> [--api <url>] [--sandbox <url>]

Makes the sandbox produce <event> for the merchant by running a real collection through the API
with the sandbox's magic values, and for refund.* refunding part of it once it completed, for
payout.* paying out of the wallet it funded (no callback is forged); watch it with paygate listen.
payout.* callbacks go to the payouts callback URL (dashboard settings); paygate listen shows them
either way.

Events:
${TRIGGER_EVENTS.map((event) => `  ${event.padEnd(22)} ${TRIGGERS[event].how}`).join('\n')}

  --api <url>      the gateway (default PAYGATE_API_URL, or http://127.0.0.1:3000)
  --sandbox <url>  the sandbox's admin routes, for payment.completed (default: the gateway's URL, as npm start serves both)

Environment: PAYGATE_PUBLIC_KEY and PAYGATE_SECRET_KEY, the merchant's keys. payment.completed
also uses PAYGATE_ADMIN_TOKEN when set, to create a fresh PRN in the sandbox; without it, it pays
${STANDING_PRN}, which can be paid once (after that the biller refuses it: payment.failed).`;

export const triggerCommand: Command = {
  name: 'trigger',
  summary: 'make the sandbox produce a callback event for the merchant',
  usage: USAGE,
  async run(args, io) {
    const event = args[0] && !args[0].startsWith('-') ? args[0] : undefined;
    const values = parseOptions('trigger', event ? args.slice(1) : args, {
      api: { type: 'string' },
      sandbox: { type: 'string' },
    });
    if (values.help) {
      io.stdout.write(USAGE + '\n');
      return 0;
    }
    if (!event) throw new CliError(`trigger: name the event: one of ${TRIGGER_EVENTS.join(', ')}`);
    const trigger = TRIGGERS[event];
    if (!trigger)
      throw new CliError(`trigger: unknown event ${JSON.stringify(event)}: one of ${TRIGGER_EVENTS.join(', ')}`);
    const api = merchantApi('trigger', io.env, values.api);
    const sandboxUrl = httpUrl('trigger', '--sandbox', values.sandbox ?? api.apiUrl).replace(/\/+$/, '');
    const prn = trigger.needsPayablePrn ? await payablePrn(sandboxUrl, io.env.PAYGATE_ADMIN_TOKEN) : undefined;
    const reference = `trigger-${event.replace('.', '-')}-${randomBytes(4).toString('hex')}`;
    const request = trigger.request(prn);
    const path = request.prn === undefined ? '/v1/collections/initialize' : '/v1/collections/collect-for-payment';
    const accepted = await post(api, path, { merchant_reference: reference, ...request });
    if (trigger.confirm) {
      if (!accepted.internal_reference)
        throw new CliError('trigger: the gateway accepted the collection without an internal_reference to confirm');
      await post(
        api,
        '/v1/collections/confirm',
        { internal_reference: accepted.internal_reference },
        'the confirmation',
      );
    }
    const covers = trigger.refundAmount ?? trigger.payout?.covers;
    if (covers !== undefined) await completedAndCovered(api, accepted.internal_reference, covers);
    const refund = trigger.refundAmount !== undefined && {
      internal_reference: accepted.internal_reference,
      refund_reference: `${reference}-refund`,
      amount: trigger.refundAmount,
    };
    if (refund) await post(api, '/v1/refunds', refund, 'the refund');
    const payout = trigger.payout && {
      payout_reference: `${reference}-payout`,
      currency: 'UGX',
      amount: trigger.payout.amount,
      provider_code: 'mtn_momo_ug',
      msisdn: trigger.payout.msisdn,
    };
    if (payout) await post(api, '/v1/payouts', payout, 'the payout');
    io.stdout.write(
      `Triggered ${event}: ${trigger.how}.\n` +
        `  collection ${accepted.internal_reference ?? '?'} (merchant_reference ${reference})${prn ? `, PRN ${prn}` : ''}` +
        `${refund ? `, refund ${refund.refund_reference}` : ''}${payout ? `, payout ${payout.payout_reference}` : ''}\n` +
        `  callbacks to expect: ${trigger.expect.join(', ')}\n`,
    );
    return 0;
  },
};

/** The sandbox settles a collection and credits the wallet within seconds; this long means something is wrong. */
const SETTLING_TIMEOUT_MS = 60_000;
const POLL_MS = 250;

/** Waits until the collection is COMPLETED and the wallet's available balance reaches `covers` (major units). */
async function completedAndCovered(
  api: MerchantApi,
  internalReference: string | undefined,
  covers: number,
): Promise<void> {
  if (!internalReference)
    throw new CliError('trigger: the gateway accepted the collection without an internal_reference to wait for');
  const deadline = Date.now() + SETTLING_TIMEOUT_MS;
  const until = async (what: string, done: () => Promise<boolean>) => {
    while (!(await done())) {
      if (Date.now() > deadline) throw new CliError(`trigger: gave up waiting for ${what}`);
      await wait(POLL_MS);
    }
  };
  await until(`collection ${internalReference} to complete`, async () => {
    const { transaction_status: status } = await get<{ transaction_status?: string }>(
      api,
      `/v1/collections/${internalReference}`,
    );
    if (status !== 'PENDING' && status !== 'COMPLETED')
      throw new CliError(`trigger: collection ${internalReference} ended ${status}, so the wallet has nothing from it`);
    return status === 'COMPLETED';
  });
  // The wallet is credited a moment after the collection completes.
  await until('the wallet to cover it', async () =>
    (await get<{ currency: string; available_balance: number }[]>(api, '/v1/wallet-balances')).some(
      (wallet) => wallet.currency === 'UGX' && wallet.available_balance >= covers,
    ),
  );
}

async function call(api: MerchantApi, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(`${api.apiUrl}${path}`, {
      ...init,
      headers: {
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        'public-key': api.publicKey,
        'secret-key': api.secretKey,
      },
    });
  } catch (error) {
    throw new CliError(
      `trigger: cannot reach the gateway at ${api.apiUrl}: ${(error as { cause?: { code?: string } }).cause?.code ?? 'no answer'}`,
    );
  }
}

async function get<Data>(api: MerchantApi, path: string): Promise<Data> {
  const response = await call(api, path);
  if (response.status !== 200)
    throw new CliError(`trigger: the gateway refused GET ${path}: ${await refusal(response)}`);
  return ((await response.json()) as { data: Data }).data;
}

async function post(
  api: MerchantApi,
  path: string,
  body: Record<string, unknown>,
  what = 'the collection',
): Promise<{ internal_reference?: string }> {
  const response = await call(api, path, { method: 'POST', body: JSON.stringify(body) });
  if (response.status !== 202 && response.status !== 200)
    throw new CliError(`trigger: the gateway refused ${what}: ${await refusal(response)}`);
  return ((await response.json()) as { data?: { internal_reference?: string } }).data ?? {};
}

/** A PRN the biller will accept: a fresh one when the admin token allows, else the standing one. */
async function payablePrn(sandboxUrl: string, adminToken: string | undefined): Promise<string> {
  if (!adminToken) return STANDING_PRN;
  let response: Response;
  try {
    response = await fetch(`${sandboxUrl}/sandbox/v1/prns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ amount: STANDING_PRN_AMOUNT, currency: 'UGX', service_name: 'URA - Domestic Tax' }),
    });
  } catch (error) {
    throw new CliError(
      `trigger: cannot reach the sandbox at ${sandboxUrl}: ${(error as { cause?: { code?: string } }).cause?.code ?? 'no answer'}`,
    );
  }
  if (response.status !== 201)
    throw new CliError(`trigger: the sandbox refused to create a PRN: ${await refusal(response)}`);
  return ((await response.json()) as { data: { prn: string } }).data.prn;
}
