import {
  acknowledgedState,
  AUTO_MERCHANT_REFERENCE,
  assertSameRequest,
  MESSAGES,
  newInternalReference,
  newMerchantReference,
  nextAction,
  openCollection,
  requestHash,
  toCollectionDetails,
  toCollectionRecord,
  type Collection,
  type CollectionAction,
  type CollectionCommand,
  type CollectionProcessContext,
  type CollectionState,
  type CollectionStep,
  type CollectionTimerKind,
  type CollectionTrigger,
  type CollectionEvent,
} from '@paygate/collections-domain';
import type { CollectOperations } from '@paygate/connectors';
import {
  CommandRejectedError,
  planCollection,
  UnavailableError,
  type Acknowledgement,
  type ConfirmCollectionCommand,
  type FindCollectionQuery,
  type FoundCollection,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import type { DeciderRuntime, StreamAt } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import type { CollectionProjection } from './collection-projection';
import type { CollectionsConfig } from './config';
import type { ReferenceRegistry, ReservedReference } from './reference-registry';

export type CollectionRuntime = DeciderRuntime<CollectionCommand, CollectionEvent, CollectionState>;

export interface CollectionsServiceDeps {
  collections: CollectionRuntime;
  references: ReferenceRegistry;
  projection: CollectionProjection;
  config: CollectionsConfig;
  /** The collect operations of a provider_code's connector. */
  collectors: (providerCode: string) => CollectOperations;
  /** Base URL providers call back, and base URL of the gateway the checkout returns to. */
  urls: { providerCallback: () => string; checkoutReturn: () => string };
  log: Logger;
  metrics: Metrics;
  now?: () => Date;
}

/** How a run of the collection process ended (CollectionAction's Done or RetryAt), and the collection then. */
interface RunEnd {
  collection: CollectionState;
  end: Extract<CollectionAction, { type: 'Done' | 'RetryAt' }>;
}

/** A collection about to be opened: the merchant's reference, the request's hash, and the Initiate command once reserved. */
interface Opening {
  merchantId: string;
  merchantReference: string;
  hash: string;
  initiate: (reserved: ReservedReference) => CollectionCommand;
}

/** What opening wrote: the reservation, and the collection's stream with the process's step it ends on when it was started here. */
interface Opened {
  reserved: ReservedReference;
  stream?: StreamAt<CollectionState>;
  last: CollectionStep;
}

const TRIGGERED: CollectionStep = { type: 'Triggered' };
const OPENED: CollectionTrigger = { type: 'Opened' };

const notFound = () => new CommandRejectedError('not_found', 'transaction not found');

/**
 * The collections service's use cases: it loads a collection, runs the decider and the
 * collection process (@paygate/collections-domain) and carries out what the process asks for.
 * Transport-free, so it is tested without NestJS (collections.service.*.spec.ts).
 */
export class CollectionsService {
  private readonly now: () => Date;
  private readonly finished: Counter<'status' | 'method'>;
  private readonly process: CollectionProcessContext;

  constructor(private readonly deps: CollectionsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.finished = deps.metrics.counter({
      name: 'paygate_collections_finished_total',
      help: 'Collections that reached a final state, by status (COMPLETED, FAILED, CANCELLED) and transaction method.',
      labelNames: ['status', 'method'],
    });
    this.process = {
      policy: deps.config,
      providerReferenceFor: (providerCode, internalReference) => deps.collectors(providerCode).providerReferenceFor?.(internalReference),
    };
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
    if (command.request.prn === undefined)
      throw new CommandRejectedError('invalid_request', 'prn is required', { errors: [{ field: 'prn', message: 'prn is required' }] });
    const { state } = await this.open(command);
    return {
      message: MESSAGES.collectForPaymentAccepted,
      data: { internal_reference: state.initiated.internalReference, merchant_reference: state.initiated.merchantReference },
    };
  }

  /** service-payments found the PRN eligible: the collection proceeds. */
  async acceptPrn(internalReference: string): Promise<void> {
    const accepted = await this.execute(internalReference, { type: 'AcceptPrn', at: this.now().toISOString() });
    await this.proceed(internalReference, accepted);
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
    const opening: Opening = {
      merchantId,
      merchantReference,
      hash,
      initiate: (reserved) => openCollection({ merchantId, request, plan, merchantReference, reserved, at: this.now().toISOString() }, this.deps.config),
    };
    const opened = this.deps.collections.transactional ? await this.reserveAndStart(opening) : await this.reserveThenStart(opening);
    const { reserved, last } = opened;
    let { stream } = opened;
    // A retry of the same request finds the collection (or, after a crash between KurrentDB's two steps, only the reservation).
    if (!reserved.fresh) {
      stream = await this.load(reserved.internalReference);
      // The same request twice at once: the other one initiated it.
      stream = stream.state
        ? stream
        : await this.execute(reserved.internalReference, opening.initiate(reserved)).catch(async (error: unknown) => {
            if (error instanceof CommandRejectedError && error.code === 'already_exists') return this.load(reserved.internalReference);
            throw error;
          });
    }
    if (!stream?.state) throw new Error('collection missing after initiate');
    return { state: (await this.proceed(reserved.internalReference, stream, last)) ?? stream.state, fresh: reserved.fresh };
  }

  /**
   * The SQL event store: the reservation and the collection's first events in one transaction,
   * or neither. The process's commands that need no provider (the implicit confirmation) are
   * decided into the same append; `last` says where the run goes on from.
   */
  private async reserveAndStart({ merchantId, merchantReference, hash, initiate }: Opening): Promise<Opened> {
    const opened = await this.deps.collections.transaction(async (tx): Promise<Opened> => {
      const reserved = await this.deps.references.reserve(merchantId, merchantReference, newInternalReference(), hash, tx.sql);
      assertSameRequest(reserved, hash, merchantReference);
      if (!reserved.fresh) return { reserved, last: TRIGGERED };
      let last: CollectionStep = TRIGGERED;
      const started = await tx.start(reserved.internalReference, (collection) => {
        if (!collection) return initiate(reserved);
        const action = nextAction({ trigger: OPENED, last, collection, now: this.now().toISOString() }, this.process);
        if (action.type !== 'Execute') return undefined;
        last = { type: 'Executed', command: action.command.type };
        return action.command;
      });
      return { reserved, stream: started, last };
    });
    if (opened.stream) this.noteFinished(opened.reserved.internalReference, opened.stream.state);
    return opened;
  }

  /** KurrentDB: the reservation first, then the stream; a reservation whose stream could not be written is released. */
  private async reserveThenStart({ merchantId, merchantReference, hash, initiate }: Opening): Promise<Opened> {
    const reserved = await this.deps.references.reserve(merchantId, merchantReference, newInternalReference(), hash);
    assertSameRequest(reserved, hash, merchantReference);
    if (!reserved.fresh) return { reserved, last: TRIGGERED };
    const stream = await this.execute(reserved.internalReference, initiate(reserved), { expectNew: true }).catch(async (error: unknown) => {
      if (error instanceof CommandRejectedError && error.code === 'already_exists') return this.load(reserved.internalReference);
      await this.deps.references.release(merchantId, merchantReference, reserved.internalReference).catch(() => undefined);
      throw error;
    });
    return { reserved, stream, last: TRIGGERED };
  }

  /**
   * Runs the process on a collection just opened; a provider failure leaves it PENDING for the
   * status timer to retry. A store that does not answer is the caller's to retry (503): before
   * the implicit confirmation is recorded no timer exists that would start the collection (on
   * KurrentDB; the SQL store records it with the initiation).
   */
  private async proceed(internalReference: string, stream: StreamAt<CollectionState>, last: CollectionStep = TRIGGERED): Promise<CollectionState> {
    return this.run(internalReference, OPENED, stream, last).then(
      ({ collection }) => collection,
      (error: unknown) => {
        if (error instanceof UnavailableError) throw error;
        this.deps.log.warn('provider request failed; will retry', { internal_reference: internalReference, error });
        return stream.state;
      },
    );
  }

  async confirm({ merchantId, internalReference }: ConfirmCollectionCommand): Promise<Acknowledgement> {
    const loaded = await this.load(internalReference);
    const current = loaded.state;
    if (!current || current.initiated.merchantId !== merchantId) throw notFound();
    const { collection } = await this.run(internalReference, { type: 'ConfirmRequested' }, loaded).catch((error: unknown) => {
      if (error instanceof CommandRejectedError || error instanceof UnavailableError) throw error;
      this.deps.log.warn('provider request failed', { internal_reference: internalReference, error });
      throw new CommandRejectedError('provider_unavailable', 'the payment provider could not be reached; confirm again to retry', {
        internal_reference: internalReference,
      });
    });
    const { currency, transactionAmount, transactionMethod } = current.initiated;
    if (transactionMethod === 'CARD') {
      return { message: MESSAGES.confirmRedirect(currency, transactionAmount), data: { payment_url: collection?.paymentUrl } };
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

  /** A provider says something changed: the process asks the provider's status API, which a forged callback cannot answer. */
  async refreshFromProvider(internalReference: string, providerReferenceHint?: string): Promise<void> {
    await this.run(internalReference, { type: 'ProviderCalledBack', referenceHint: providerReferenceHint }, await this.load(internalReference));
  }

  async fireTimer(timer: DueTimer<CollectionTimerKind>): Promise<TimerVerdict> {
    const loaded = await this.load(timer.internalReference);
    const { end } = await this.run(timer.internalReference, { type: 'TimerDue', kind: timer.kind, dueAt: timer.dueAt.toISOString() }, loaded);
    return end.type === 'Done' ? { done: true } : { done: false, retryAt: new Date(end.at) };
  }

  /**
   * One run of the collection process: carries out each action it names and feeds back what
   * came of it. A provider's error ends the run with that error when the process says so.
   */
  private async run(
    internalReference: string,
    trigger: CollectionTrigger,
    start: StreamAt<CollectionState>,
    from: CollectionStep = TRIGGERED,
  ): Promise<RunEnd> {
    // Each command is decided against the stream as the last one left it: no read in between.
    let stream = start;
    let collection = stream.state;
    let last = from;
    let providerError: unknown;
    for (;;) {
      const action = nextAction({ trigger, last, collection, now: this.now().toISOString() }, this.process);
      switch (action.type) {
        case 'Execute':
          stream = await this.execute(internalReference, action.command, { current: stream });
          collection = stream.state;
          last = { type: 'Executed', command: action.command.type };
          break;
        case 'RequestProvider': {
          const { providerCode, ...request } = action.request;
          try {
            const initiation = await this.deps.collectors(providerCode).initiate({
              ...request,
              notifyUrl: `${this.deps.urls.providerCallback()}/provider-callbacks/${encodeURIComponent(providerCode)}/${request.reference}`,
              returnUrl: `${this.deps.urls.checkoutReturn()}/v1/checkout/return/${request.reference}`,
            });
            last = { type: 'ProviderAccepted', providerReference: initiation.providerReference, paymentUrl: initiation.paymentUrl };
          } catch (error) {
            providerError = error;
            last = { type: 'ProviderUnreachable' };
          }
          break;
        }
        case 'QueryProvider':
          try {
            last = { type: 'ProviderAnswered', outcome: await this.deps.collectors(action.providerCode).status(action.reference) };
          } catch (error) {
            providerError = error;
            last = { type: 'ProviderUnreachable' };
          }
          break;
        case 'Reject':
          throw new CommandRejectedError(action.code, action.message);
        case 'Fail':
          throw providerError;
        case 'Done':
        case 'RetryAt':
          return { collection, end: action };
      }
    }
  }

  private load(internalReference: string) {
    return this.deps.collections.load(internalReference);
  }

  private async execute(
    internalReference: string,
    command: CollectionCommand,
    options: { expectNew?: boolean; current?: StreamAt<CollectionState> } = {},
  ): Promise<StreamAt<CollectionState>> {
    const handled = await this.deps.collections.handle(internalReference, command, options);
    if (handled.events.length > 0) this.noteFinished(internalReference, handled.state);
    return handled;
  }

  /** A final collection decides nothing more: events that leave it final are its last, counted once. */
  private noteFinished(internalReference: string, state: CollectionState): void {
    if (state?.phase !== 'FINAL') return;
    this.finished.inc({ status: state.status, method: state.initiated.transactionMethod });
    this.deps.log.info('collection finished', { internal_reference: internalReference, status: state.status, method: state.initiated.transactionMethod });
  }
}
