import {
  CommandRejectedError,
  HoldMoneyOut,
  moneyOutStream,
  msisdnBelongsTo,
  type ApprovePayoutCommand,
  type CheckRecipientQuery,
  type DisbursementsContract,
  type FindPayoutQuery,
  type ListMoneyOutAttentionQuery,
  type ListPayoutApprovalsQuery,
  type ListPayoutsQuery,
  type Provider,
  type ProviderCatalogue,
  type RequestPayoutCommand,
  type ResultOf,
} from '@paygate/contracts';
import { ProviderRequestError, type AccountHolder, type ConnectorRegistry } from '@paygate/connectors';
import { payoutDayId, type MoneyOutRequest } from '@paygate/disbursements-domain';
import type { Logger } from '@paygate/logging';
import type { CommandBus } from '@paygate/messaging';
import { computeFee, formatMoney, isSupportedCurrency } from '@paygate/money';
import type { DisbursementsProjection } from './disbursements-projection';
import type { MoneyOutRuns, MoneyOutRuntime, PayoutDayRuntime } from './money-out-runs';
import { toPayoutRecord } from './records';

export interface PayoutsDeps {
  moneyOuts: MoneyOutRuntime;
  payoutDays: PayoutDayRuntime;
  runs: MoneyOutRuns;
  projection: DisbursementsProjection;
  commands: CommandBus;
  catalogue: ProviderCatalogue;
  connectors: () => ConnectorRegistry;
  livemode: boolean;
  log: Logger;
  now?: () => Date;
}

type Result<Name extends keyof DisbursementsContract & string> = Promise<ResultOf<DisbursementsContract, Name>>;

const invalid = (field: string, message: string) =>
  new CommandRejectedError('invalid_request', message, { errors: [{ field, message }] });

const money = (minor: number, currency: string) =>
  isSupportedCurrency(currency) ? formatMoney(minor, currency) : `${minor} minor units of ${currency}`;

/** Names compared as people write them: case and runs of spaces aside. */
const sameName = (a: string, b: string) =>
  a.trim().replace(/\s+/g, ' ').toLowerCase() === b.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The payout use cases. A payout is accepted once everything a merchant could get wrong is checked, moving nothing
 * until the checks are done: the provider's terms (limits, the number's network), then the name check at the
 * provider (an account that cannot receive, or another name than the merchant expects, is refused before any money
 * is held). It is then accepted in three idempotent steps keyed by its payout_reference, as a refund is: counted in
 * its merchant's day against the daily cap (payout-day.ts), amount and fee held on the wallet (payments.holdMoneyOut:
 * a wallet never goes below zero), its stream started, PENDING_APPROVAL above the merchant's approval threshold; a
 * step refused undoes the one before. The same payout_reference with the same request answers the same payout and
 * asks the provider nothing.
 */
export class Payouts {
  private readonly now: () => Date;

  constructor(private readonly deps: PayoutsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async checkRecipient({ providerCode, msisdn }: CheckRecipientQuery): Result<'disbursements.checkRecipient'> {
    const provider = this.payoutProvider(providerCode);
    this.checkMsisdn(provider, msisdn);
    const holder = await this.accountHolder(provider, msisdn);
    return {
      recipient: { providerCode, msisdn, canReceive: holder.canReceive, name: holder.canReceive ? holder.name : null },
    };
  }

  async requestPayout(command: RequestPayoutCommand): Result<'disbursements.requestPayout'> {
    const { merchantId, payoutReference, currency, amount, providerCode, msisdn, settings } = command;
    const { moneyOuts, commands } = this.deps;
    const provider = this.payoutProvider(providerCode);
    const terms = provider.payout!;
    if (currency !== provider.currency)
      throw invalid('currency', `currency must be ${provider.currency}, the currency of ${providerCode}`);
    if (!Number.isSafeInteger(amount) || amount < 1)
      throw invalid('amount', 'amount must be a positive whole number of minor units');
    if (amount < terms.minAmount || amount > terms.maxAmount)
      throw invalid(
        'amount',
        `a payout through ${providerCode} is ${money(terms.minAmount, currency)} to ${money(terms.maxAmount, currency)}`,
      );
    this.checkMsisdn(provider, msisdn);
    const streamId = moneyOutStream('PAYOUT', merchantId, payoutReference);
    const asked = {
      kind: 'PAYOUT' as const,
      merchantId,
      reference: payoutReference,
      currency,
      requestedAmount: amount,
      amount,
      fee: computeFee(amount, terms.fee),
      providerCode,
      internalReference: null,
      merchantReference: null,
      msisdn,
      reason: null,
      livemode: this.deps.livemode,
    };

    const existing = await moneyOuts.load(streamId);
    if (existing.state) {
      // The same reference again: the same request answers the same payout, another one is refused (decideMoneyOut).
      const { fee, recipientName, requestedAt } = existing.state.request;
      const again: MoneyOutRequest = { ...asked, fee, recipientName, requestedAt };
      const handled = await moneyOuts.handle(streamId, { type: 'Request', request: again }, { current: existing });
      return { payout: toPayoutRecord(handled.state ?? existing.state), created: false };
    }

    const holder = await this.accountHolder(provider, msisdn);
    if (!holder.canReceive) throw invalid('msisdn', `msisdn ${msisdn} cannot receive mobile money`);
    if (command.recipientName !== undefined && !sameName(command.recipientName, holder.name))
      throw invalid('recipient_name', `recipient_name does not match the name of the account holder of ${msisdn}`);

    const request: MoneyOutRequest = { ...asked, recipientName: holder.name, requestedAt: this.now().toISOString() };
    const dayId = payoutDayId(merchantId, currency, request.requestedAt);
    await this.deps.payoutDays.handle(dayId, {
      type: 'Count',
      merchantId,
      currency,
      day: request.requestedAt.slice(0, 10),
      payoutReference,
      amount,
      cap: settings.dailyCap,
      at: request.requestedAt,
    });
    try {
      await commands.send(
        new HoldMoneyOut({
          merchantId,
          currency,
          kind: 'PAYOUT',
          reference: payoutReference,
          amount: request.amount + request.fee,
        }),
      );
    } catch (error) {
      await this.deps.payoutDays.handle(dayId, { type: 'Uncount', payoutReference, at: this.now().toISOString() });
      if (error instanceof CommandRejectedError && error.code === 'insufficient_funds') {
        const available = Number(error.details?.available ?? 0);
        throw invalid(
          'amount',
          `the wallet's available balance, ${money(available, currency)}, cannot cover this payout of ${money(request.amount, currency)} and its fee of ${money(request.fee, currency)}`,
        );
      }
      throw error;
    }
    const started = await moneyOuts.handle(
      streamId,
      { type: 'Request', request, approvalThreshold: settings.approvalThreshold, createdBy: command.createdBy ?? null },
      { expectNew: true },
    );
    if (!started.state) throw new Error(`payout ${payoutReference} missing after its request`);
    this.runInBackground(streamId);
    return { payout: toPayoutRecord(started.state), created: true };
  }

  async approvePayout({
    merchantId,
    payoutReference,
    approverId,
  }: ApprovePayoutCommand): Result<'disbursements.approvePayout'> {
    const streamId = moneyOutStream('PAYOUT', merchantId, payoutReference);
    const current = await this.deps.moneyOuts.load(streamId);
    if (!current.state) throw new CommandRejectedError('not_found', 'payout not found');
    const approved = await this.deps.moneyOuts.handle(
      streamId,
      { type: 'Approve', approverId, at: this.now().toISOString() },
      { current },
    );
    this.runInBackground(streamId);
    return { payout: toPayoutRecord(approved.state ?? current.state) };
  }

  async findPayout(query: FindPayoutQuery): Result<'disbursements.findPayout'> {
    const found = await this.deps.projection.findPayout(query);
    if (found) return { payout: found };
    // The projection can trail the latest write: the stream has the answer.
    const { state } = await this.deps.moneyOuts.load(moneyOutStream('PAYOUT', query.merchantId, query.payoutReference));
    return { payout: state ? toPayoutRecord(state) : null };
  }

  listPayouts(query: ListPayoutsQuery): Result<'disbursements.listPayouts'> {
    return this.deps.projection.listPayouts(query);
  }

  async listMoneyOutAttention({
    limit,
    merchantId,
  }: ListMoneyOutAttentionQuery): Result<'disbursements.listMoneyOutAttention'> {
    return { items: await this.deps.projection.needingAttention(limit, merchantId) };
  }

  async listPayoutApprovals(query: ListPayoutApprovalsQuery): Result<'disbursements.listPayoutApprovals'> {
    return { waiting: await this.deps.projection.payoutApprovals(query) };
  }

  /** An enabled provider with payout terms whose connector pays out, or a refusal naming provider_code. */
  private payoutProvider(providerCode: string): Provider {
    const provider = this.deps.catalogue.get(providerCode);
    const registry = this.deps.connectors();
    if (!provider?.enabled || !provider.payout || !registry.has(providerCode) || !registry.get(providerCode).payout)
      throw invalid('provider_code', `provider_code ${providerCode} does not take payouts`);
    return provider;
  }

  private checkMsisdn(provider: Provider, msisdn: string): void {
    if (!msisdnBelongsTo(provider, msisdn))
      throw invalid('msisdn', `msisdn ${msisdn} is not a number of ${provider.code}`);
  }

  /** The provider's name check; a provider that does not answer is a service unavailable for now, never a refusal. */
  private async accountHolder(provider: Provider, msisdn: string): Promise<AccountHolder> {
    try {
      return await this.deps.connectors().get(provider.code, 'payout').payout.accountHolder(msisdn);
    } catch (error) {
      this.deps.log.warn('a payout name check got no answer', { provider_code: provider.code, error });
      const message =
        error instanceof ProviderRequestError
          ? `${provider.code} refused the name check`
          : `${provider.code} did not answer the name check; try again`;
      throw new CommandRejectedError('provider_unavailable', message);
    }
  }

  /** The payout's first run, not awaited by the merchant: its timer runs it again if this one does not finish. */
  private runInBackground(streamId: string): void {
    this.deps.runs.run(streamId, { type: 'Accepted' }).catch((error: unknown) => {
      this.deps.log.warn('a payout run failed; its timer runs it again', { money_out_stream: streamId, error });
    });
  }
}
