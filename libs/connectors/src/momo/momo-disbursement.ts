import { isRecord, nonEmpty } from '../json';
import type {
  AccountHolder,
  MoneyOutOutcome,
  PayoutOperations,
  PayoutRequest,
  RefundOperations,
  RefundRequest,
} from '../port';
import { rejected, type MomoProductApi } from './momo-api';
import {
  momoMoneyOutCallbackReference,
  momoMoneyOutOutcome,
  momoReferenceId,
  momoRefundReferenceId,
  momoTransferReferenceId,
} from './momo-protocol';

/** A created resource: 202, or 409 when the X-Reference-Id was used before (the same request again). */
async function create(api: MomoProductApi, path: string, referenceId: string, notifyUrl: string, body: unknown) {
  const answer = await api.authorized('POST', path, {
    headers: { 'content-type': 'application/json', 'x-reference-id': referenceId, 'x-callback-url': notifyUrl },
    body: JSON.stringify(body),
  });
  if (answer.status !== 202 && answer.status !== 409) throw rejected(answer.status, answer.body);
}

/** A transfer's or refund's status; 404 means MoMo never registered the X-Reference-Id. */
async function statusOf(api: MomoProductApi, path: string, referenceId: string): Promise<MoneyOutOutcome> {
  const { status, body } = await api.authorized('GET', `${path}/${encodeURIComponent(referenceId)}`);
  if (status === 404) return { status: 'NOT_FOUND' };
  const outcome = status === 200 ? momoMoneyOutOutcome(body, referenceId) : undefined;
  if (!outcome) throw rejected(status, body);
  return outcome;
}

/** Payouts through MTN MoMo's Disbursement product: the account holder check, transfer and its status. */
export class MomoPayout implements PayoutOperations {
  constructor(private readonly api: MomoProductApi) {}

  /** `active` first: an account that cannot receive has no name worth asking; 404 is a number MoMo does not know. */
  async accountHolder(msisdn: string): Promise<AccountHolder> {
    const path = `/v1_0/accountholder/msisdn/${encodeURIComponent(msisdn)}`;
    const active = await this.api.authorized('GET', `${path}/active`);
    if (active.status === 404) return { canReceive: false };
    if (active.status !== 200 || !isRecord(active.body) || typeof active.body.result !== 'boolean')
      throw rejected(active.status, active.body);
    if (!active.body.result) return { canReceive: false };
    const { status, body } = await this.api.authorized('GET', `${path}/basicuserinfo`);
    const name =
      status === 200 && isRecord(body)
        ? nonEmpty(body.name)?.trim() ||
          [nonEmpty(body.given_name), nonEmpty(body.family_name)].filter(Boolean).join(' ').trim()
        : '';
    if (!name) throw rejected(status, body);
    return { canReceive: true, name };
  }

  send(request: PayoutRequest): Promise<void> {
    return create(this.api, '/v1_0/transfer', momoTransferReferenceId(request.reference), request.notifyUrl, {
      amount: request.amount,
      currency: request.currency,
      externalId: request.reference,
      payee: { partyIdType: 'MSISDN', partyId: request.msisdn },
      payerMessage: request.payerMessage,
      payeeNote: request.payeeNote,
    });
  }

  status(reference: string): Promise<MoneyOutOutcome> {
    return statusOf(this.api, '/v1_0/transfer', momoTransferReferenceId(reference));
  }

  verifyNotification(body: unknown): string | null {
    return momoMoneyOutCallbackReference(body, 'transfer');
  }
}

/** Refunds of MoMo collections through the Disbursement product; MoMo refunds part of a collection as well as all. */
export class MomoRefund implements RefundOperations {
  readonly partial = true;

  constructor(private readonly api: MomoProductApi) {}

  send(request: RefundRequest): Promise<void> {
    return create(this.api, '/v2_0/refund', momoRefundReferenceId(request.reference), request.notifyUrl, {
      amount: request.amount,
      currency: request.currency,
      externalId: request.reference,
      payerMessage: request.payerMessage,
      payeeNote: request.payeeNote,
      referenceIdToRefund: momoReferenceId(request.collectionReference),
    });
  }

  status(reference: string): Promise<MoneyOutOutcome> {
    return statusOf(this.api, '/v1_0/refund', momoRefundReferenceId(reference));
  }

  verifyNotification(body: unknown): string | null {
    return momoMoneyOutCallbackReference(body, 'refund');
  }
}
