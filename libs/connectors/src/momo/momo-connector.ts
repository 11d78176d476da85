import type { CollectInitiateRequest, CollectInitiation, CollectOperations, Connector, ProviderOutcome } from '../port';
import { MomoProductApi, rejected, type MomoConnectorConfig } from './momo-api';
import { MomoPayout, MomoRefund } from './momo-disbursement';
import { momoCallbackReference, momoOutcome, momoReferenceId } from './momo-protocol';

/** MTN MoMo's Collection API (or a provider, or the sandbox, speaking it) over HTTP. */
class MomoCollection implements CollectOperations {
  constructor(private readonly api: MomoProductApi) {}

  /** Idempotent per reference: the same X-Reference-Id again is answered 409, which counts as accepted. */
  async initiate(request: CollectInitiateRequest): Promise<CollectInitiation> {
    const referenceId = momoReferenceId(request.reference);
    const { status, body } = await this.api.authorized('POST', '/v1_0/requesttopay', {
      headers: {
        'content-type': 'application/json',
        'x-reference-id': referenceId,
        'x-callback-url': request.notifyUrl,
      },
      body: JSON.stringify({
        amount: request.amount,
        currency: request.currency,
        externalId: request.reference,
        payer: { partyIdType: 'MSISDN', partyId: request.msisdn ?? '' },
        payerMessage: request.payerMessage,
        payeeNote: request.payeeNote,
      }),
    });
    if (status !== 202 && status !== 409) throw rejected(status, body);
    return { providerReference: referenceId };
  }

  async status(referenceId: string): Promise<ProviderOutcome> {
    const { status, body } = await this.api.authorized('GET', `/v1_0/requesttopay/${encodeURIComponent(referenceId)}`);
    const outcome = status === 200 ? momoOutcome(body, referenceId) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
  }

  verifyNotification(body: unknown): string | null {
    return momoCallbackReference(body);
  }

  providerReferenceFor(reference: string): string {
    return momoReferenceId(reference);
  }
}

/** Collections through the Collection product; payouts and refunds through the Disbursement product, one token for both. */
export function momoConnector(config: MomoConnectorConfig): Connector {
  const disbursement = new MomoProductApi(config, 'disbursement');
  return {
    protocol: 'momo',
    collect: new MomoCollection(new MomoProductApi(config, 'collection')),
    payout: new MomoPayout(disbursement),
    refund: new MomoRefund(disbursement),
  };
}
