import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Background } from '../background';
import { momoError } from '../provider-api-error';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { hundredths } from '../validation';
import {
  DisbursementStore,
  type MoneyOutOutcome,
  type Refund,
  type StoredRefund,
  type StoredTransfer,
  type Transfer,
} from './disbursement-store';
import { MomoSimulator } from './momo-simulator';

/** What becomes of a payout or refund, decided by a test number's last four digits. */
interface Plan {
  outcome: 'SUCCESSFUL' | { status: 'FAILED'; reason: string };
  /** When the outcome is known, after the request. */
  delayMs: number;
  /** False: the request itself gets no answer (the caller times out), though it was recorded. */
  answered: boolean;
  callsBack: boolean;
  /** A completed payout taken back this long after it completed. */
  reversedAfterMs?: number;
}

export const REVERSAL_REASON = 'TRANSACTION_REVERSED';

/** The account holder's given names by a number's last digit, family names by the digit before it. */
const GIVEN_NAMES = ['Grace', 'Sarah', 'John', 'Esther', 'Joseph', 'Ruth', 'Moses', 'Agnes', 'Peter', 'Harriet'];
const FAMILY_NAMES = [
  'Nakato',
  'Okello',
  'Namubiru',
  'Mugisha',
  'Atim',
  'Ssempala',
  'Akello',
  'Tumusiime',
  'Byaruhanga',
  'Nansubuga',
];

/** A payout to a number ending 0003 reaches an account that cannot receive: the account holder check says so. */
const cannotReceive = (msisdn: string) => msisdn.endsWith('0003');

/** A transfer's status representation, also the body of its callback. */
export function transferBody(transfer: StoredTransfer): Record<string, unknown> {
  return {
    amount: transfer.amount,
    currency: transfer.currency,
    financialTransactionId: transfer.financialTransactionId,
    externalId: transfer.externalId,
    payee: transfer.payee,
    payerMessage: transfer.payerMessage,
    payeeNote: transfer.payeeNote,
    status: transfer.status,
    reason: transfer.reason,
  };
}

/** A refund's status representation, also the body of its callback. */
export function refundBody(refund: StoredRefund): Record<string, unknown> {
  return {
    amount: refund.amount,
    currency: refund.currency,
    financialTransactionId: refund.financialTransactionId,
    externalId: refund.externalId,
    payerMessage: refund.payerMessage,
    payeeNote: refund.payeeNote,
    status: refund.status,
    reason: refund.reason,
  };
}

const settled = (plan: Plan): MoneyOutOutcome =>
  plan.outcome === 'SUCCESSFUL'
    ? { status: 'SUCCESSFUL', financialTransactionId: String(randomInt(1_000_000_000, 10_000_000_000)) }
    : plan.outcome;

const inHundredths = (value: number) => (value % 100 === 0 ? String(value / 100) : (value / 100).toFixed(2));

/**
 * MTN MoMo's Disbursement product, simulated: the account holder check, payouts (transfers) by the payee's number and
 * refunds by the refunded collection's payer number. Outcome timers live in memory like the collection's; an outcome
 * whose time has passed is given on the next status read even when its timer was lost.
 */
@Injectable()
export class DisbursementSimulator {
  constructor(
    private readonly store: DisbursementStore,
    private readonly momo: MomoSimulator,
    private readonly background: Background,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  private transferPlan(partyId: string): Plan {
    const { latencyMs, lateCompletionMs, reversalDelayMs } = this.config;
    const plan: Plan = { outcome: 'SUCCESSFUL', delayMs: latencyMs, answered: true, callsBack: true };
    switch (partyId.slice(-4)) {
      case '0002':
        return { ...plan, outcome: { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' } };
      case '0003':
        return { ...plan, outcome: { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' } };
      case '0004':
        return { ...plan, delayMs: lateCompletionMs, answered: false, callsBack: false };
      case '0005':
        return { ...plan, callsBack: false };
      case '0006':
        return { ...plan, reversedAfterMs: reversalDelayMs };
      default:
        return plan;
    }
  }

  private refundPlan(payerPartyId: string): Plan {
    const { latencyMs, lateCompletionMs } = this.config;
    const plan: Plan = { outcome: 'SUCCESSFUL', delayMs: latencyMs, answered: true, callsBack: true };
    switch (payerPartyId.slice(-4)) {
      case '0007':
        return { ...plan, outcome: { status: 'FAILED', reason: 'NOT_ALLOWED' } };
      case '0008':
        return { ...plan, delayMs: lateCompletionMs, answered: false, callsBack: false };
      default:
        return plan;
    }
  }

  /** Whether the number's account can receive, and its holder's name (fixed per number). */
  accountHolder(msisdn: string): { active: boolean; givenName: string; familyName: string } {
    return {
      active: !cannotReceive(msisdn),
      givenName: GIVEN_NAMES[Number(msisdn.at(-1))],
      familyName: FAMILY_NAMES[Number(msisdn.at(-2))],
    };
  }

  /** Records a transfer; `created` false when its reference id was used before, `answered` false when it gets no answer. */
  async transfer(
    request: Omit<Transfer, 'resolvesAt' | 'reversesAt'>,
  ): Promise<{ created: boolean; answered: boolean }> {
    const plan = this.transferPlan(request.payee.partyId);
    const resolvesAt = new Date(Date.now() + plan.delayMs);
    const reversesAt =
      plan.reversedAfterMs === undefined ? undefined : new Date(resolvesAt.getTime() + plan.reversedAfterMs);
    const { created } = await this.store.recordTransfer({ ...request, resolvesAt, reversesAt });
    if (created) {
      this.background.later(plan.delayMs, () => this.resolveTransfer(request.referenceId));
      if (plan.reversedAfterMs !== undefined)
        this.background.later(plan.delayMs + plan.reversedAfterMs, () => this.reverseTransfer(request.referenceId));
    }
    return { created, answered: plan.answered };
  }

  /**
   * Records a refund of a SUCCESSFUL request to pay, refusing one over what is left of it (earlier refunds not failed
   * count); `created` false when its reference id was used before, `answered` false when it gets no answer.
   */
  async refund(request: Omit<Refund, 'resolvesAt'>): Promise<{ created: boolean; answered: boolean }> {
    // A collection whose outcome is due is settled first, as a status read would.
    await this.momo.status(request.referenceIdToRefund);
    let plan: Plan | undefined;
    const { created } = await this.store.recordRefund(request, (collection) => {
      if (!collection) throw momoError(404, 'RESOURCE_NOT_FOUND', 'referenceIdToRefund names no request to pay');
      if (collection.status !== 'SUCCESSFUL')
        throw momoError(400, 'NOT_ALLOWED', 'only a SUCCESSFUL request to pay can be refunded');
      if (collection.currency !== request.currency)
        throw momoError(400, 'INVALID_CURRENCY', `the request to pay was in ${collection.currency}`);
      const left = hundredths(collection.amount) - collection.refundedHundredths;
      if (hundredths(request.amount) > left)
        throw momoError(
          400,
          'INVALID_AMOUNT',
          `the refund is more than is left of the request to pay: ${inHundredths(left)} ${collection.currency}`,
        );
      plan = this.refundPlan(collection.payerPartyId);
      return new Date(Date.now() + plan.delayMs);
    });
    if (created && plan) this.background.later(plan.delayMs, () => this.resolveRefund(request.referenceId));
    return { created, answered: plan?.answered ?? true };
  }

  async transferStatus(referenceId: string): Promise<StoredTransfer | undefined> {
    let transfer = await this.store.findTransfer(referenceId);
    const now = Date.now();
    if (transfer?.status === 'PENDING' && transfer.resolvesAt.getTime() <= now)
      transfer = await this.settleTransfer(transfer);
    if (transfer?.status === 'SUCCESSFUL' && transfer.reversesAt && transfer.reversesAt.getTime() <= now)
      transfer = await this.store.reverse(referenceId, REVERSAL_REASON);
    return transfer;
  }

  async refundStatus(referenceId: string): Promise<StoredRefund | undefined> {
    const refund = await this.store.findRefund(referenceId);
    if (refund?.status !== 'PENDING' || refund.resolvesAt.getTime() > Date.now()) return refund;
    return this.settleRefund(refund);
  }

  private settleTransfer(transfer: StoredTransfer): Promise<StoredTransfer | undefined> {
    return this.store.settle('transfer', transfer.referenceId, settled(this.transferPlan(transfer.payee.partyId)));
  }

  private async settleRefund(refund: StoredRefund): Promise<StoredRefund | undefined> {
    const collection = await this.momo.status(refund.referenceIdToRefund);
    return this.store.settle('refund', refund.referenceId, settled(this.refundPlan(collection?.payer.partyId ?? '')));
  }

  /** The timers' side: whoever settled first, the callback goes out from here, once. */
  private async resolveTransfer(referenceId: string): Promise<void> {
    const pending = await this.store.findTransfer(referenceId);
    if (!pending) return;
    const transfer = await this.settleTransfer(pending);
    if (transfer?.callbackUrl && this.transferPlan(transfer.payee.partyId).callsBack)
      await this.background.callback('PUT', transfer.callbackUrl, transferBody(transfer), {
        provider: 'momo',
        referenceId,
      });
  }

  private async reverseTransfer(referenceId: string): Promise<void> {
    const transfer = await this.store.reverse(referenceId, REVERSAL_REASON);
    if (transfer?.status === 'REVERSED' && transfer.callbackUrl)
      await this.background.callback('PUT', transfer.callbackUrl, transferBody(transfer), {
        provider: 'momo',
        referenceId,
      });
  }

  private async resolveRefund(referenceId: string): Promise<void> {
    const pending = await this.store.findRefund(referenceId);
    if (!pending) return;
    const refund = await this.settleRefund(pending);
    const collection = refund && (await this.momo.status(refund.referenceIdToRefund));
    if (refund?.callbackUrl && this.refundPlan(collection?.payer.partyId ?? '').callsBack)
      await this.background.callback('PUT', refund.callbackUrl, refundBody(refund), { provider: 'momo', referenceId });
  }
}
