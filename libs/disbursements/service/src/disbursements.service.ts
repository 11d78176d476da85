import {
  CommandRejectedError,
  HoldMoneyOut,
  type ProviderCatalogue,
  type RefundedCollection,
  type DisbursementsContract,
  type FindRefundQuery,
  type ListRefundsQuery,
  type RefundedAmountQuery,
  type RequestRefundCommand,
  type ResultOf,
  moneyOutStream,
} from '@paygate/contracts';
import type { ConnectorRegistry } from '@paygate/connectors';
import { type MoneyOutRequest, type MoneyOutInput } from '@paygate/disbursements-domain';
import type { Logger } from '@paygate/logging';
import { formatMoney, isSupportedCurrency } from '@paygate/money';
import type { CommandBus } from '@paygate/messaging';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import type { DisbursementsProjection } from './disbursements-projection';
import type { MoneyOutRuns, MoneyOutRuntime, RefundAllocationRuntime } from './money-out-runs';
import { toRefundRecord } from './records';

export interface DisbursementsServiceDeps {
  moneyOuts: MoneyOutRuntime;
  allocations: RefundAllocationRuntime;
  runs: MoneyOutRuns;
  projection: DisbursementsProjection;
  commands: CommandBus;
  /** Whether a collection's provider refunds parts of payments (a part is otherwise paid out to the payer). */
  catalogue: ProviderCatalogue;
  connectors: () => ConnectorRegistry;
  /** MODE=live: the refunds this deployment makes move real money. */
  livemode: boolean;
  log: Logger;
  now?: () => Date;
}

type Result<Name extends keyof DisbursementsContract & string> = Promise<ResultOf<DisbursementsContract, Name>>;

const amountError = (message: string) =>
  new CommandRejectedError('invalid_request', message, { errors: [{ field: 'amount', message }] });

const money = (minor: number, currency: string) =>
  isSupportedCurrency(currency) ? formatMoney(minor, currency) : `${minor} minor units of ${currency}`;

/**
 * The disbursements use cases. A refund is accepted in three idempotent steps, each keyed by the merchant's
 * refund_reference: its share of the collection is allocated (refunds in flight count), its amount held on the
 * wallet (payments.holdMoneyOut: the available balance counts every hold), and its stream started; a step refused
 * undoes the one before, so a refused request changes nothing. The provider is then asked by the money-out process
 * (money-out-runs.ts), at once and again whenever its timer fires, until it has said.
 */
export class DisbursementsService {
  private readonly now: () => Date;

  constructor(private readonly deps: DisbursementsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async requestRefund(command: RequestRefundCommand): Result<'disbursements.requestRefund'> {
    const { merchantId, refundReference, collection, amount, reason } = command;
    const { moneyOuts, allocations, commands } = this.deps;
    if (amount !== undefined && (!Number.isSafeInteger(amount) || amount < 1))
      throw amountError('amount must be a positive whole number of minor units');
    const streamId = moneyOutStream('REFUND', merchantId, refundReference);
    const asked = {
      kind: 'REFUND' as const,
      merchantId,
      reference: refundReference,
      currency: collection.currency,
      requestedAmount: amount ?? null,
      fee: 0,
      providerCode: collection.providerCode,
      internalReference: collection.internalReference,
      merchantReference: collection.merchantReference,
      msisdn: collection.transactionMethod === 'MOBILE_MONEY' ? collection.transactionAccount : null,
      recipientName: null,
      reason: reason ?? null,
      livemode: this.deps.livemode,
    };

    const existing = await moneyOuts.load(streamId);
    if (existing.state) {
      // The same reference again: the same request answers the same refund, another one is refused (decideMoneyOut).
      const { amount: resolved, requestedAt } = existing.state.request;
      const again: MoneyOutRequest = { ...asked, amount: resolved, requestedAt };
      const handled = await moneyOuts.handle(streamId, { type: 'Request', request: again }, { current: existing });
      return { refund: toRefundRecord(handled.state ?? existing.state), created: false };
    }

    const at = this.now().toISOString();
    const allocated = await allocations.handle(collection.internalReference, {
      type: 'Allocate',
      collection: { ...collection, merchantId },
      refundReference,
      requestedAmount: amount ?? null,
      at,
    });
    const share = allocated.state?.refunds[refundReference]?.amount;
    if (share === undefined) throw new Error(`refund ${refundReference} has no allocation after allocating`);
    const giveBack = () =>
      allocations.handle(collection.internalReference, {
        type: 'Release',
        refundReference,
        at: this.now().toISOString(),
      });
    let refundAsPayout: boolean;
    try {
      refundAsPayout = this.paidOutToPayer(collection, share);
    } catch (error) {
      await giveBack();
      throw error;
    }
    try {
      await commands.send(
        new HoldMoneyOut({
          merchantId,
          currency: collection.currency,
          kind: 'REFUND',
          reference: refundReference,
          amount: share,
        }),
      );
    } catch (error) {
      await giveBack();
      if (error instanceof CommandRejectedError && error.code === 'insufficient_funds') {
        const available = Number(error.details?.available ?? 0);
        throw amountError(
          `the wallet's available balance, ${money(available, collection.currency)}, cannot cover this refund of ${money(share, collection.currency)}`,
        );
      }
      throw error;
    }
    const request: MoneyOutRequest = {
      ...asked,
      amount: share,
      ...(refundAsPayout && { refundAsPayout }),
      requestedAt: at,
    };
    const started = await moneyOuts.handle(streamId, { type: 'Request', request }, { expectNew: true });
    if (!started.state) throw new Error(`refund ${refundReference} missing after its request`);
    this.runInBackground(streamId, { type: 'Accepted' });
    return { refund: toRefundRecord(started.state), created: true };
  }

  async findRefund(query: FindRefundQuery): Result<'disbursements.findRefund'> {
    const found = await this.deps.projection.findRefund(query);
    if (found) return { refund: found };
    // The projection can trail the latest write: the stream has the answer.
    const { state } = await this.deps.moneyOuts.load(moneyOutStream('REFUND', query.merchantId, query.refundReference));
    return { refund: state ? toRefundRecord(state) : null };
  }

  listRefunds(query: ListRefundsQuery): Result<'disbursements.listRefunds'> {
    return this.deps.projection.listRefunds(query);
  }

  async refundedAmount({ merchantId, internalReference }: RefundedAmountQuery): Result<'disbursements.refundedAmount'> {
    return { amountRefunded: await this.deps.projection.refundedAmount(merchantId, internalReference) };
  }

  async fireTimer(timer: DueTimer<string>): Promise<TimerVerdict> {
    const end = await this.deps.runs.run(timer.internalReference, { type: 'TimerDue' });
    return !end || end.type === 'Done' ? { done: true } : { done: false, retryAt: new Date(end.at) };
  }

  /** A provider's callback: a hint, so the provider is asked (the stream must be a money-out's). */
  async notified(streamId: string): Promise<void> {
    await this.deps.runs.run(streamId, { type: 'Notified' });
  }

  /** The request's first run, not awaited by the merchant: its timer runs it again if this one does not finish. */
  private runInBackground(streamId: string, input: MoneyOutInput): void {
    this.deps.runs.run(streamId, input).catch((error: unknown) => {
      this.deps.log.warn('a refund run failed; its timer runs it again', { money_out_stream: streamId, error });
    });
  }
  /**
   * Whether a refund of `share` is paid out to the payer rather than refunded: a part of a payment whose provider
   * refunds only whole ones. Refused (naming amount) when no payout can reach the payer: a card, or a provider
   * without a payout product.
   */
  private paidOutToPayer(collection: RefundedCollection, share: number): boolean {
    const provider = this.deps.catalogue.get(collection.providerCode);
    if (!provider?.fullRefundsOnly || share >= collection.transactionAmount) return false;
    const registry = this.deps.connectors();
    const payable =
      collection.transactionMethod === 'MOBILE_MONEY' &&
      collection.transactionAccount !== null &&
      registry.has(provider.code) &&
      registry.get(provider.code).payout !== undefined;
    if (!payable)
      throw amountError(
        `${provider.code} refunds only whole payments: refund all ${money(collection.transactionAmount, collection.currency)} of it at once`,
      );
    return true;
  }
}
