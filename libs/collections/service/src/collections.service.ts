import {
  acknowledgedState,
  AUTO_MERCHANT_REFERENCE,
  MESSAGES,
  newInternalReference,
  newMerchantReference,
  requestHash,
  toCollectionDetails,
  toCollectionRecord,
  type Collection,
  type CollectionCommand,
  type CollectionState,
  type ProviderOutcome,
} from '@paygate/collections-domain';
import type { CollectInitiation, ConnectorRegistry } from '@paygate/connectors';
import {
  CommandRejectedError,
  planCollection,
  type Acknowledgement,
  type CollectionEvent,
  type ConfirmCollectionCommand,
  type FindCollectionQuery,
  type FoundCollection,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import { toMajorUnits } from '@paygate/money';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import type { CollectionProjection, CollectionTimerKind } from './collection-projection';
import type { CollectionsConfig } from './config';
import type { ReferenceRegistry } from './reference-registry';

export type CollectionRuntime = DeciderRuntime<CollectionCommand, CollectionEvent, CollectionState>;

export interface CollectionsServiceDeps {
  collections: CollectionRuntime;
  references: ReferenceRegistry;
  projection: CollectionProjection;
  config: CollectionsConfig;
  /** Built on first use: their default base URLs are this process's own, known once it listens. */
  connectors: () => ConnectorRegistry;
  /** Base URL providers call back, and base URL of the gateway the checkout returns to. */
  urls: { providerCallback: () => string; checkoutReturn: () => string };
  log: Logger;
  metrics: Metrics;
  now?: () => Date;
}

const notFound = () => new CommandRejectedError('not_found', 'transaction not found');

/** The collections service's use cases; transport-free so it is tested without NestJS. */
export class CollectionsService {
  private readonly now: () => Date;
  private readonly finished: Counter<'status' | 'method'>;

  constructor(private readonly deps: CollectionsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.finished = deps.metrics.counter({
      name: 'paygate_collections_finished_total',
      help: 'Collections that reached a final state, by status (COMPLETED, FAILED, CANCELLED) and transaction method.',
      labelNames: ['status', 'method'],
    });
  }

  async initialize(command: InitializeCollectionCommand): Promise<Acknowledgement> {
    const { state, fresh } = await this.open(command);
    // A retry gets the acknowledgement the first request got, whatever happened since.
    const acknowledged = fresh ? state : (acknowledgedState((await this.load(state.initiated.internalReference)).events) ?? state);
    return {
      message: acknowledged.initiated.requireConfirmation ? MESSAGES.initiatedAwaitingConfirmation : MESSAGES.initiatedProcessing,
      data: { ...toCollectionRecord(acknowledged) },
    };
  }

  /** A collection that pays a PRN: accepted now, it waits for service-payments' verdict on the PRN. */
  async collectForPayment(command: InitializeCollectionCommand): Promise<Acknowledgement> {
    if (command.request.prn === undefined) throw new CommandRejectedError('invalid_request', 'prn is required', { errors: [{ field: 'prn', message: 'prn is required' }] });
    const { state } = await this.open(command);
    return { message: MESSAGES.collectForPaymentAccepted, data: { internal_reference: state.initiated.internalReference, merchant_reference: state.initiated.merchantReference } };
  }

  /** service-payments found the PRN eligible: the collection proceeds (at once when it needs no confirmation). */
  async acceptPrn(internalReference: string): Promise<void> {
    const state = await this.execute(internalReference, { type: 'AcceptPrn', at: this.now().toISOString() });
    if (state && state.phase === 'AWAITING_CONFIRMATION' && !state.initiated.requireConfirmation) {
      await this.startWithProvider(state, true).catch((error: unknown) => {
        // The status timer asks the provider again; the merchant sees PENDING meanwhile.
        this.deps.log.warn('provider request failed; will retry', { internal_reference: internalReference, error });
      });
    }
  }

  /** The PRN is not eligible: the collection ends CANCELLED before anything reached the customer. */
  async rejectPrn(internalReference: string, reason: string): Promise<void> {
    await this.execute(internalReference, { type: 'RejectPrn', at: this.now().toISOString(), reason });
  }

  /** Validates, reserves the merchant reference and initiates the collection (or finds the one a retry made). */
  private async open({ merchantId, request }: InitializeCollectionCommand): Promise<{ state: Collection; fresh: boolean }> {
    const planned = planCollection(request, this.deps.config.catalogue);
    if (!planned.ok) throw new CommandRejectedError('invalid_request', planned.errors.map((e) => e.message).join('; '), { errors: planned.errors });
    const { plan } = planned;
    const merchantReference = request.merchant_reference === AUTO_MERCHANT_REFERENCE ? newMerchantReference() : request.merchant_reference;
    const hash = requestHash({ ...request, merchant_reference: merchantReference });
    const reserved = await this.deps.references.reserve(merchantId, merchantReference, newInternalReference(), hash);
    if (!reserved.fresh && reserved.requestHash !== hash) {
      throw new CommandRejectedError('duplicate_reference', `merchant_reference ${merchantReference} was already used for a different request`, {
        merchant_reference: merchantReference,
      });
    }
    const now = this.now();
    const { config } = this.deps;
    const initiate: CollectionCommand = {
      type: 'Initiate',
      data: {
        id: reserved.id,
        merchantId,
        merchantReference,
        internalReference: reserved.internalReference,
        transactionMethod: plan.provider.method,
        providerCode: plan.provider.code,
        institutionName: plan.provider.name,
        currency: plan.provider.currency,
        requestAmount: plan.requestAmount,
        transactionAmount: plan.charges.transactionAmount,
        fee: plan.charges.fee,
        totalCredit: plan.charges.totalCredit,
        chargeCustomer: request.charge_customer,
        requireConfirmation: request.require_confirmation,
        msisdn: plan.provider.method === 'MOBILE_MONEY' ? request.msisdn : undefined,
        customerName: request.customer_name,
        customerEmail: request.customer_email,
        description: request.description,
        redirectUrl: request.redirect_url,
        prn: request.prn,
        requestHash: hash,
        initiatedAt: now.toISOString(),
        // A collect-for-payment collection gets the deadline even without confirmation: its PRN verdict must come by then.
        confirmationExpiresAt: request.require_confirmation || request.prn !== undefined ? new Date(now.getTime() + config.confirmationTimeoutMs).toISOString() : undefined,
      },
    };
    // A retry of the same request finds the collection (or, after a crash, only the reservation).
    let state = reserved.fresh ? null : (await this.load(reserved.internalReference)).state;
    state ??= await this.execute(reserved.internalReference, initiate, reserved.fresh).catch(async (error: unknown) => {
      // The same request twice at once: the other one initiated it.
      if (error instanceof CommandRejectedError && error.code === 'already_exists') return (await this.load(reserved.internalReference)).state;
      if (reserved.fresh) await this.deps.references.release(merchantId, merchantReference, reserved.internalReference).catch(() => undefined);
      throw error;
    });
    if (!state) throw new Error('collection missing after initiate');
    // A collection with a PRN waits for its verdict before anything reaches the provider.
    if (!state.initiated.requireConfirmation && state.phase === 'AWAITING_CONFIRMATION') {
      state = await this.startWithProvider(state, true).catch((error: unknown) => {
        // The status timer asks the provider again; the merchant sees PENDING meanwhile.
        this.deps.log.warn('provider request failed; will retry', { internal_reference: reserved.internalReference, error });
        return state as Collection;
      });
    }
    return { state, fresh: reserved.fresh };
  }

  async confirm({ merchantId, internalReference }: ConfirmCollectionCommand): Promise<Acknowledgement> {
    const { state: current } = await this.load(internalReference);
    if (!current || current.initiated.merchantId !== merchantId) throw notFound();
    if (!current.initiated.requireConfirmation) {
      throw new CommandRejectedError('not_awaiting_confirmation', `transaction ${internalReference} was initiated with require_confirmation=false and needs no confirmation`);
    }
    const state = await this.startWithProvider(current, false).catch((error: unknown) => {
      if (error instanceof CommandRejectedError) throw error;
      this.deps.log.warn('provider request failed', { internal_reference: internalReference, error });
      throw new CommandRejectedError('provider_unavailable', 'the payment provider could not be reached; confirm again to retry', { internal_reference: internalReference });
    });
    const { currency, transactionAmount, transactionMethod } = state.initiated;
    if (transactionMethod === 'CARD') {
      return { message: MESSAGES.confirmRedirect(currency, transactionAmount), data: { payment_url: state.paymentUrl } };
    }
    return { message: MESSAGES.confirmPrompt(currency, transactionAmount), data: {} };
  }

  async find(query: FindCollectionQuery): Promise<FoundCollection> {
    let state: CollectionState = null;
    if (query.internalReference !== undefined) {
      state = await this.deps.projection.findByInternalReference(query.merchantId, query.internalReference);
      // The projection can trail the write a merchant just made: the stream has the answer.
      state ??= (await this.load(query.internalReference)).state;
    } else if (query.merchantReference !== undefined) {
      state = await this.deps.projection.findByMerchantReference(query.merchantId, query.merchantReference);
      if (!state) {
        const reserved = await this.deps.references.find(query.merchantId, query.merchantReference);
        if (reserved) state = (await this.load(reserved.internalReference)).state;
      }
    }
    if (!state || state.initiated.merchantId !== query.merchantId) throw notFound();
    return { record: toCollectionDetails(state), redirectUrl: state.initiated.redirectUrl };
  }

  /** The authoritative state, straight from the stream (for the card return, right after a result). */
  async current(internalReference: string): Promise<FoundCollection & { merchantId: string }> {
    const { state } = await this.load(internalReference);
    if (!state) throw notFound();
    return { record: toCollectionDetails(state), redirectUrl: state.initiated.redirectUrl, merchantId: state.initiated.merchantId };
  }

  /**
   * A provider says something changed. The callback's body is not trusted: the provider's
   * status API is asked, so a forged callback can change nothing.
   */
  async refreshFromProvider(internalReference: string, providerReferenceHint?: string): Promise<void> {
    const { state } = await this.load(internalReference);
    if (!state || state.phase === 'FINAL' || state.phase === 'AWAITING_CONFIRMATION') return;
    const reference = this.providerReferenceOf(state) ?? providerReferenceHint;
    if (!reference) return;
    await this.recordOutcome(state, await this.queryProvider(state, reference));
  }

  async fireTimer(timer: DueTimer<CollectionTimerKind>): Promise<TimerVerdict> {
    const at = new Date(Math.max(this.now().getTime(), timer.dueAt.getTime())).toISOString();
    const ref = timer.internalReference;
    if (timer.kind === 'confirmation') {
      await this.execute(ref, () => ({ type: 'Expire', at, timer: 'confirmation' }));
      return { done: true };
    }
    let { state } = await this.load(ref);
    if (!state || state.phase === 'FINAL') return { done: true };
    if (timer.kind === 'provider') {
      // Last chance for a result whose callback never came, before cancelling.
      const reference = this.providerReferenceOf(state);
      if (reference) state = await this.recordOutcome(state, await this.queryProvider(state, reference).catch(() => ({ status: 'PENDING' }) as const));
      await this.execute(ref, () => ({ type: 'Expire', at, timer: 'provider' }));
      return { done: true };
    }
    if (state?.phase === 'AWAITING_PROVIDER') state = await this.startWithProvider(state, !state.initiated.requireConfirmation);
    else if (state?.phase === 'WITH_PROVIDER') {
      const reference = this.providerReferenceOf(state);
      if (reference) state = await this.recordOutcome(state, await this.queryProvider(state, reference));
    }
    return state?.phase === 'FINAL' ? { done: true } : { done: false, retryAt: new Date(this.now().getTime() + this.deps.config.statusPollMs) };
  }

  /** Confirms (explicitly or implicitly) and asks the provider for the prompt or checkout, once. */
  private async startWithProvider(state: Collection, implicit: boolean): Promise<Collection> {
    const ref = state.initiated.internalReference;
    const now = this.now();
    const timeout = state.initiated.transactionMethod === 'CARD' ? this.deps.config.checkoutTimeoutMs : this.deps.config.promptTimeoutMs;
    const confirmed = await this.execute(ref, () => ({ type: 'Confirm', at: now.toISOString(), implicit, providerExpiresAt: new Date(now.getTime() + timeout).toISOString() }));
    if (!confirmed) throw notFound();
    if (confirmed.phase === 'FINAL') {
      throw new CommandRejectedError('not_awaiting_confirmation', `transaction ${ref} is ${confirmed.status} and cannot be confirmed`);
    }
    if (confirmed.phase !== 'AWAITING_PROVIDER') return confirmed;
    const { providerReference, paymentUrl } = await this.requestProvider(confirmed);
    const after = await this.execute(ref, () => ({ type: 'RecordProviderRequest', at: this.now().toISOString(), providerReference, paymentUrl }));
    return after ?? confirmed;
  }

  /** The provider's connector picks from the request what its protocol needs. */
  private async requestProvider(state: Collection): Promise<CollectInitiation> {
    const data = state.initiated;
    return this.collector(data.providerCode).initiate({
      reference: data.internalReference,
      amount: String(toMajorUnits(data.transactionAmount, data.currency)),
      currency: data.currency,
      msisdn: data.msisdn,
      description: data.description,
      payerMessage: (data.description || `Payment ${data.merchantReference}`).slice(0, 160),
      payeeNote: data.merchantReference.slice(0, 160),
      notifyUrl: `${this.deps.urls.providerCallback()}/provider-callbacks/${encodeURIComponent(data.providerCode)}/${data.internalReference}`,
      returnUrl: `${this.deps.urls.checkoutReturn()}/v1/checkout/return/${data.internalReference}`,
      expiresAt: state.providerExpiresAt ?? new Date(this.now().getTime() + this.deps.config.checkoutTimeoutMs).toISOString(),
    });
  }

  private providerReferenceOf(state: Collection): string | undefined {
    if (state.providerReference) return state.providerReference;
    // Known without a recorded answer only where our reference fixes it (MoMo's X-Reference-Id).
    return state.phase !== 'AWAITING_CONFIRMATION' ? this.collector(state.initiated.providerCode).providerReferenceFor?.(state.initiated.internalReference) : undefined;
  }

  private async queryProvider(state: Collection, reference: string): Promise<ProviderOutcome> {
    return this.collector(state.initiated.providerCode).status(reference);
  }

  private collector(providerCode: string) {
    return this.deps.connectors().get(providerCode, 'collect').collect;
  }

  private async recordOutcome(state: Collection, outcome: ProviderOutcome): Promise<Collection> {
    if (outcome.status === 'PENDING') return state;
    const after = await this.execute(state.initiated.internalReference, () => ({ type: 'RecordProviderOutcome', at: this.now().toISOString(), outcome }));
    return after ?? state;
  }

  private load(internalReference: string) {
    return this.deps.collections.load(internalReference);
  }

  private async execute(internalReference: string, command: CollectionCommand | ((state: CollectionState) => CollectionCommand), expectNew = false): Promise<CollectionState> {
    const { state, events } = await this.deps.collections.handle(internalReference, command, { expectNew });
    // A final collection decides nothing more: events that leave it final are its last, counted once.
    if (events.length > 0 && state?.phase === 'FINAL') {
      this.finished.inc({ status: state.status, method: state.initiated.transactionMethod });
      this.deps.log.info('collection finished', { internal_reference: internalReference, status: state.status, method: state.initiated.transactionMethod });
    }
    return state;
  }
}
