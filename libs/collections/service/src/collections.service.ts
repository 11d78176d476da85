import { createHash } from 'node:crypto';
import {
  acknowledgedState,
  AUTO_MERCHANT_REFERENCE,
  CollectionRejected,
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
import { planCollection, type Acknowledgement, type CollectionDetails, type ConfirmCollectionCommand, type FindCollectionQuery, type InitializeCollectionCommand } from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import { CommandRejectedError } from '@paygate/messaging';
import { toMajorUnits } from '@paygate/money';
import type { CollectionProjection } from './collection-projection';
import type { CollectionRepository } from './collection-repository';
import type { DueTimer } from './collection-timers';
import type { CollectionsConfig } from './config';
import type { CardConnector, MobileMoneyConnector } from './providers/provider-connectors';
import type { ReferenceRegistry } from './reference-registry';

export interface ProviderConnectors {
  mobileMoney: MobileMoneyConnector;
  card: CardConnector;
}

export interface CollectionsServiceDeps {
  repository: CollectionRepository;
  references: ReferenceRegistry;
  projection: CollectionProjection;
  config: CollectionsConfig;
  /** Built on first use: their default base URLs are this process's own, known once it listens. */
  connectors: () => ProviderConnectors;
  /** Base URL providers call back, and base URL of the gateway the checkout returns to. */
  urls: { providerCallback: () => string; checkoutReturn: () => string };
  log: Logger;
  now?: () => Date;
}

export interface FoundCollection {
  record: CollectionDetails;
  redirectUrl?: string;
}

/** What a fired timer asks of the worker: forget it, or fire it again later. */
export type TimerVerdict = { done: true } | { done: false; retryAt: Date };

/** MoMo wants a UUID v4 X-Reference-Id; deriving it from the reference makes a retried request the same request. */
export function providerReferenceId(internalReference: string): string {
  const bytes = createHash('sha256').update(`momo:${internalReference}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function rejected(error: unknown): never {
  if (error instanceof CollectionRejected) throw new CommandRejectedError(error.code, error.message, error.status);
  throw error;
}

const notFound = () => new CommandRejectedError('not_found', 'transaction not found', 404);

/** The collections service's use cases; transport-free so it is tested without NestJS. */
export class CollectionsService {
  private readonly now: () => Date;

  constructor(private readonly deps: CollectionsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async initialize({ merchantId, request }: InitializeCollectionCommand): Promise<Acknowledgement> {
    const planned = planCollection(request, this.deps.config.catalogue);
    if (!planned.ok) throw new CommandRejectedError('invalid_request', planned.errors.map((e) => e.message).join('; '), 400, { errors: planned.errors });
    const { plan } = planned;
    const merchantReference = request.merchant_reference === AUTO_MERCHANT_REFERENCE ? newMerchantReference() : request.merchant_reference;
    const hash = requestHash({ ...request, merchant_reference: merchantReference });
    const reserved = await this.deps.references.reserve(merchantId, merchantReference, newInternalReference(), hash);
    if (!reserved.fresh && reserved.requestHash !== hash) {
      throw new CommandRejectedError('duplicate_reference', `merchant_reference ${merchantReference} was already used for a different request`, 409, {
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
        requestHash: hash,
        initiatedAt: now.toISOString(),
        confirmationExpiresAt: request.require_confirmation ? new Date(now.getTime() + config.confirmationTimeoutMs).toISOString() : undefined,
      },
    };
    // A retry of the same request finds the collection (or, after a crash, only the reservation).
    let state = reserved.fresh ? null : (await this.deps.repository.load(reserved.internalReference)).state;
    state ??= await (reserved.fresh ? this.deps.repository.create(reserved.internalReference, initiate) : this.execute(reserved.internalReference, () => initiate)).catch(async (error: unknown) => {
      // The same request twice at once: the other one initiated it.
      if (error instanceof CommandRejectedError && error.status === 409) return (await this.deps.repository.load(reserved.internalReference)).state;
      if (reserved.fresh) await this.deps.references.release(merchantId, merchantReference, reserved.internalReference).catch(() => undefined);
      throw error;
    });
    if (!state) throw new Error('collection missing after initiate');
    if (!state.initiated.requireConfirmation) {
      state = await this.startWithProvider(state, true).catch((error: unknown) => {
        // The status timer asks the provider again; the merchant sees PENDING meanwhile.
        this.deps.log.warn('provider request failed; will retry', { internal_reference: reserved.internalReference, error });
        return state as Collection;
      });
    }
    // A retry gets the acknowledgement the first request got, whatever happened since.
    const acknowledged = reserved.fresh ? state : (acknowledgedState(await this.deps.repository.events(reserved.internalReference)) ?? state);
    return {
      code: 202,
      message: acknowledged.initiated.requireConfirmation ? MESSAGES.initiatedAwaitingConfirmation : MESSAGES.initiatedProcessing,
      data: { ...toCollectionRecord(acknowledged) },
    };
  }

  async confirm({ merchantId, internalReference }: ConfirmCollectionCommand): Promise<Acknowledgement> {
    const { state: current } = await this.deps.repository.load(internalReference);
    if (!current || current.initiated.merchantId !== merchantId) throw notFound();
    if (!current.initiated.requireConfirmation) {
      throw new CommandRejectedError('not_awaiting_confirmation', `transaction ${internalReference} was initiated with require_confirmation=false and needs no confirmation`, 409);
    }
    const state = await this.startWithProvider(current, false).catch((error: unknown) => {
      if (error instanceof CommandRejectedError) throw error;
      this.deps.log.warn('provider request failed', { internal_reference: internalReference, error });
      throw new CommandRejectedError('provider_unavailable', 'the payment provider could not be reached; confirm again to retry', 503, { internal_reference: internalReference });
    });
    const { currency, transactionAmount, transactionMethod } = state.initiated;
    if (transactionMethod === 'CARD') {
      return { code: 202, message: MESSAGES.confirmRedirect(currency, transactionAmount), data: { payment_url: state.paymentUrl } };
    }
    return { code: 202, message: MESSAGES.confirmPrompt(currency, transactionAmount), data: {} };
  }

  async find(query: FindCollectionQuery): Promise<FoundCollection> {
    let state: CollectionState = null;
    if (query.internalReference !== undefined) {
      state = await this.deps.projection.findByInternalReference(query.merchantId, query.internalReference);
      // The projection can trail the write a merchant just made: the stream has the answer.
      state ??= (await this.deps.repository.load(query.internalReference)).state;
    } else if (query.merchantReference !== undefined) {
      state = await this.deps.projection.findByMerchantReference(query.merchantId, query.merchantReference);
      if (!state) {
        const reserved = await this.deps.references.find(query.merchantId, query.merchantReference);
        if (reserved) state = (await this.deps.repository.load(reserved.internalReference)).state;
      }
    }
    if (!state || state.initiated.merchantId !== query.merchantId) throw notFound();
    return { record: toCollectionDetails(state), redirectUrl: state.initiated.redirectUrl };
  }

  /** The authoritative state, straight from the stream (for the card return, right after a result). */
  async current(internalReference: string): Promise<FoundCollection & { merchantId: string }> {
    const { state } = await this.deps.repository.load(internalReference);
    if (!state) throw notFound();
    return { record: toCollectionDetails(state), redirectUrl: state.initiated.redirectUrl, merchantId: state.initiated.merchantId };
  }

  /**
   * A provider says something changed. The callback's body is not trusted: the provider's
   * status API is asked, so a forged callback can change nothing.
   */
  async refreshFromProvider(internalReference: string, providerReferenceHint?: string): Promise<void> {
    const { state } = await this.deps.repository.load(internalReference);
    if (!state || state.phase === 'FINAL' || state.phase === 'AWAITING_CONFIRMATION') return;
    const reference = this.providerReferenceOf(state) ?? providerReferenceHint;
    if (!reference) return;
    await this.recordOutcome(state, await this.queryProvider(state, reference));
  }

  async fireTimer(timer: DueTimer): Promise<TimerVerdict> {
    const at = new Date(Math.max(this.now().getTime(), timer.dueAt.getTime())).toISOString();
    const ref = timer.internalReference;
    if (timer.kind === 'confirmation') {
      await this.execute(ref, () => ({ type: 'Expire', at, timer: 'confirmation' }));
      return { done: true };
    }
    let { state } = await this.deps.repository.load(ref);
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
      throw new CommandRejectedError('not_awaiting_confirmation', `transaction ${ref} is ${confirmed.status} and cannot be confirmed`, 409);
    }
    if (confirmed.phase !== 'AWAITING_PROVIDER') return confirmed;
    const { providerReference, paymentUrl } = await this.requestProvider(confirmed);
    const after = await this.execute(ref, () => ({ type: 'RecordProviderRequest', at: this.now().toISOString(), providerReference, paymentUrl }));
    return after ?? confirmed;
  }

  private async requestProvider(state: Collection): Promise<{ providerReference: string; paymentUrl?: string }> {
    const data = state.initiated;
    const amount = String(toMajorUnits(data.transactionAmount, data.currency));
    const callbackBase = this.deps.urls.providerCallback();
    const connectors = this.deps.connectors();
    if (data.transactionMethod === 'CARD') {
      const session = await connectors.card.createCheckoutSession({
        reference: data.internalReference,
        amount,
        currency: data.currency,
        description: data.description,
        notifyUrl: `${callbackBase}/provider-callbacks/card/${data.internalReference}`,
        returnUrl: `${this.deps.urls.checkoutReturn()}/v1/checkout/return/${data.internalReference}`,
        expiresAt: state.providerExpiresAt ?? new Date(this.now().getTime() + this.deps.config.checkoutTimeoutMs).toISOString(),
      });
      return { providerReference: session.sessionId, paymentUrl: session.paymentUrl };
    }
    const referenceId = providerReferenceId(data.internalReference);
    await connectors.mobileMoney.requestToPay({
      referenceId,
      amount,
      currency: data.currency,
      msisdn: data.msisdn ?? '',
      externalId: data.internalReference,
      payerMessage: (data.description || `Payment ${data.merchantReference}`).slice(0, 160),
      payeeNote: data.merchantReference.slice(0, 160),
      callbackUrl: `${callbackBase}/provider-callbacks/momo/${data.internalReference}`,
    });
    return { providerReference: referenceId };
  }

  private providerReferenceOf(state: Collection): string | undefined {
    if (state.providerReference) return state.providerReference;
    return state.initiated.transactionMethod === 'MOBILE_MONEY' && state.phase !== 'AWAITING_CONFIRMATION' ? providerReferenceId(state.initiated.internalReference) : undefined;
  }

  private async queryProvider(state: Collection, reference: string): Promise<ProviderOutcome> {
    const connectors = this.deps.connectors();
    return state.initiated.transactionMethod === 'CARD' ? connectors.card.status(reference) : connectors.mobileMoney.status(reference);
  }

  private async recordOutcome(state: Collection, outcome: ProviderOutcome): Promise<Collection> {
    if (outcome.status === 'PENDING') return state;
    const after = await this.execute(state.initiated.internalReference, () => ({ type: 'RecordProviderOutcome', at: this.now().toISOString(), outcome }));
    return after ?? state;
  }

  private async execute(internalReference: string, command: (state: CollectionState) => CollectionCommand): Promise<CollectionState> {
    try {
      return await this.deps.repository.execute(internalReference, command);
    } catch (error) {
      rejected(error);
    }
  }
}
