import { randomUUID } from 'node:crypto';
import type { TestCallbackResult } from '@paygate/contracts';
import type { MerchantAccounts } from '@paygate/merchants';
import { callbackBody, testCallback } from '@paygate/webhooks-domain';
import type { CallbackSender } from './callback-sender';
import { NO_SIGNING_KEY } from './delivery-worker';

export const NO_COLLECTION_CALLBACK_URL = 'no collection callback URL is set';

export interface TestCallbacksDeps {
  /** The dispatcher's sender: the same signatures, address guard and time-out as every delivery. */
  sender: Pick<CallbackSender, 'send'>;
  /** The merchant's current callback URLs, read at each test (a URL just changed is the one tested). */
  merchants: Pick<MerchantAccounts, 'get'>;
  /** The merchant's current signing key, or null (the dispatcher's). */
  signingKey: (merchantId: string) => Promise<string | null>;
}

/**
 * webhooks.sendTestCallback: one test.callback POSTed now to the merchant's collection callback URL, signed as
 * deliveries are and sent by the dispatcher's own sender, so the guard that refuses an address refuses it here too.
 * It is no delivery: nothing is queued, recorded in the delivery log or the callback stream, or retried.
 */
export class TestCallbacks {
  constructor(private readonly deps: TestCallbacksDeps) {}

  async send(merchantId: string): Promise<TestCallbackResult> {
    const webhookId = `msg_test_${randomUUID()}`;
    const url = (await this.deps.merchants.get(merchantId))?.collectionCallbackUrl ?? null;
    if (url === null) return { url, statusCode: null, durationMs: 0, error: NO_COLLECTION_CALLBACK_URL, webhookId };
    const signingKey = await this.deps.signingKey(merchantId);
    if (signingKey === null) return { url, statusCode: null, durationMs: 0, error: NO_SIGNING_KEY, webhookId };
    const outcome = await this.deps.sender.send(
      { webhookId, targetUrl: url, body: callbackBody(testCallback()) },
      signingKey,
    );
    return {
      url,
      statusCode: outcome.statusCode ?? null,
      durationMs: outcome.durationMs,
      error: outcome.error ?? null,
      webhookId,
    };
  }
}
