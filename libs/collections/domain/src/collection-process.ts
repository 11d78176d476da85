import {
  CommandRejectedError,
  planCollection,
  type CollectionPlan,
  type CollectionRequest,
  type CollectRequest,
  type ProviderCatalogue,
} from '@paygate/contracts';
import { AUTO_MERCHANT_REFERENCE, newMerchantReference, requestHash } from './references';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent, type CollectionInitiatedV1 } from './events';
import { toMajorUnits } from '@paygate/money';
import type { Process, ProcessOutput } from '@paygate/decider';
import type { Collection, CollectionCommand, CollectionState, ProviderOutcome } from './collection';

/**
 * A collection's provider interaction and timers as a pure process beside the decider: given
 * what happened last in a run (started by a trigger), it names the one thing to do next, as data.
 * libs/decider's runProcess carries it out and feeds back what came of it until the run ends.
 */

/**
 * The durable timers of a collection: the two time-outs, and status polling (which also retries a failed provider
 * request).
 */
export type CollectionTimerKind = 'confirmation' | 'provider' | 'status';

/** What an event does to the collection's durable timers (the projection applies it in the event's transaction). */
export type TimerChange =
  { type: 'Schedule'; kind: CollectionTimerKind; at: string } | { type: 'Cancel'; kinds?: CollectionTimerKind[] };

/**
 * The timer table: the confirmation deadline runs from initiation (when the event carries one);
 * a confirmation replaces it with the provider deadline and the first status poll; a final event
 * cancels every timer of the collection.
 */
export function timerChanges(event: CollectionEvent, statusPollMs: number): TimerChange[] {
  switch (event.type) {
    case EVENTS.initiated:
      return event.data.confirmationExpiresAt
        ? [{ type: 'Schedule', kind: 'confirmation', at: event.data.confirmationExpiresAt }]
        : [];
    case EVENTS.confirmed:
      return [
        { type: 'Cancel', kinds: ['confirmation'] },
        { type: 'Schedule', kind: 'provider', at: event.data.providerExpiresAt },
        {
          type: 'Schedule',
          kind: 'status',
          at: new Date(Date.parse(event.data.confirmedAt) + statusPollMs).toISOString(),
        },
      ];
    case EVENTS.completed:
    case EVENTS.failed:
    case EVENTS.cancelled:
      return [{ type: 'Cancel' }];
    default:
      return [];
  }
}

/** The configured durations the process applies, in milliseconds. */
export interface CollectionPolicy {
  /** How long a collection waits for its confirmation, or for its PRN verdict. */
  confirmationTimeoutMs: number;
  /** How long a mobile money customer has to answer the PIN prompt. */
  promptTimeoutMs: number;
  /** How long a card checkout session stays open. */
  checkoutTimeoutMs: number;
  /** How often the provider is asked for a result whose callback may have been lost. */
  statusPollMs: number;
  /** The deployment moves real money (MODE=live): what every collection it opens records as `livemode`. */
  livemode: boolean;
}

/**
 * What the process knows of the provider's protocol: where our reference fixes the provider's (MoMo's X-Reference-Id),
 * that reference.
 */
export type ProviderReferenceFor = (providerCode: string, internalReference: string) => string | undefined;

export interface CollectionProcessContext {
  policy: CollectionPolicy;
  providerReferenceFor: ProviderReferenceFor;
}

/** What starts a run. */
export type CollectionTrigger =
  /** The collection was initiated (or found again by a retry), or its PRN was accepted. */
  | { type: 'Opened' }
  /** The merchant confirms. */
  | { type: 'ConfirmRequested' }
  /** A provider says something changed; the reference its body names is only a hint. */
  | { type: 'ProviderCalledBack'; referenceHint?: string }
  | { type: 'TimerDue'; kind: CollectionTimerKind; dueAt: string };

/** The process's inputs: what happened last in a run. */
export type CollectionStep =
  | { type: 'Triggered' }
  | { type: 'Executed'; command: CollectionCommand['type'] }
  | { type: 'ProviderAccepted'; providerReference: string; paymentUrl?: string }
  | { type: 'ProviderAnswered'; outcome: ProviderOutcome }
  /** The provider could not be reached, or refused the request. */
  | { type: 'ProviderUnreachable'; error: unknown };

/** What a run decides against: what started it, the collection as the last command left it, and the time (ISO 8601). */
export interface CollectionRun {
  trigger: CollectionTrigger;
  collection: CollectionState;
  now: string;
}

/**
 * The prompt or checkout to ask for, and of which provider; the service adds the URLs the provider calls and returns
 * to.
 */
export type ProviderRequest = CollectRequest & { providerCode: string };

/** The provider calls a collection makes. */
export type CollectionCall =
  | { type: 'RequestProvider'; request: ProviderRequest }
  | { type: 'QueryProvider'; providerCode: string; reference: string };

export type CollectionOutput = ProcessOutput<CollectionCommand, CollectionCall>;
export type CollectionProcess = Process<CollectionStep, CollectionRun, CollectionCommand, CollectionCall>;

const DONE: CollectionOutput = { type: 'Done' };
const execute = (command: CollectionCommand): CollectionOutput => ({ type: 'Execute', command });
const later = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/**
 * The Initiate command for a new collection. It gets a confirmation deadline when it waits for
 * one, and a collect-for-payment collection gets it even without: its PRN verdict must come by then.
 */
export function initiateCollection(
  data: Omit<CollectionInitiatedV1, 'confirmationExpiresAt'>,
  policy: CollectionPolicy,
): CollectionCommand {
  const deadline =
    data.requireConfirmation || data.prn !== undefined
      ? later(data.initiatedAt, policy.confirmationTimeoutMs)
      : undefined;
  return { type: 'Initiate', data: { ...data, confirmationExpiresAt: deadline } };
}

/** The merchant reference as reserved for a collection: its numeric id, internal reference and request hash. */
export interface ReservedCollection {
  id: number;
  internalReference: string;
  requestHash: string;
  /** False when a request with this merchant reference came before. */
  fresh: boolean;
}

/** A merchant reference used before names the same request again (same hash), or is refused. */
export function assertSameRequest<Reserved extends ReservedCollection>(
  reserved: Reserved,
  requestHash: string,
  merchantReference: string,
): Reserved {
  if (!reserved.fresh && reserved.requestHash !== requestHash) {
    throw new CommandRejectedError(
      'duplicate_reference',
      `merchant_reference ${merchantReference} was already used for a different request`,
      {
        merchant_reference: merchantReference,
      },
    );
  }
  return reserved;
}

export interface CollectionOpening {
  merchantId: string;
  request: CollectionRequest;
  plan: CollectionPlan;
  merchantReference: string;
  reserved: ReservedCollection;
  /** ISO 8601. */
  at: string;
}

/**
 * An initialize request as planned: the merchant reference (made for `auto`), the request's hash, and its Initiate once
 * reserved.
 */
export interface PlannedOpening {
  merchantReference: string;
  hash: string;
  initiate(reserved: ReservedCollection): CollectionCommand;
}

/**
 * Plans an initialize (or collect-for-payment, `prnRequired`) against the provider catalogue:
 * the charges, the merchant reference, the hash a retry must match. Refuses a request the
 * catalogue cannot serve with invalid_request naming each field.
 */
export function planOpening(
  { merchantId, request }: { merchantId: string; request: CollectionRequest },
  policy: CollectionPolicy & { catalogue: ProviderCatalogue },
  at: string,
  rules: { prnRequired?: boolean } = {},
): PlannedOpening {
  const planned = planCollection(request, policy.catalogue, rules);
  if (!planned.ok)
    throw new CommandRejectedError('invalid_request', planned.errors.map((e) => e.message).join('; '), {
      errors: planned.errors,
    });
  const merchantReference =
    request.merchant_reference === AUTO_MERCHANT_REFERENCE ? newMerchantReference() : request.merchant_reference;
  return {
    merchantReference,
    hash: requestHash({ ...request, merchant_reference: merchantReference }),
    initiate: (reserved) =>
      openCollection({ merchantId, request, plan: planned.plan, merchantReference, reserved, at }, policy),
  };
}

/**
 * The Initiate command for a planned request: the plan's provider and charges, the request's customer details (a msisdn
 * only for mobile money).
 */
export function openCollection(
  { merchantId, request, plan, merchantReference, reserved, at }: CollectionOpening,
  policy: CollectionPolicy,
): CollectionCommand {
  return initiateCollection(
    {
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
      requestHash: reserved.requestHash,
      initiatedAt: at,
      livemode: policy.livemode,
    },
    policy,
  );
}

/**
 * The collection process: from what happened last in a run to the one thing to do next. A
 * provider's answer is recorded whatever started the run; the rest depends on what did.
 */
export function collectionProcess(context: CollectionProcessContext): CollectionProcess {
  return { decide: (last, run) => [nextOutput(last, run, context)] };
}

function nextOutput(
  last: CollectionStep,
  { trigger, collection, now }: CollectionRun,
  context: CollectionProcessContext,
): CollectionOutput {
  if (!collection) return DONE;
  if (last.type === 'ProviderAccepted') {
    return execute({
      type: 'RecordProviderRequest',
      at: now,
      providerReference: last.providerReference,
      paymentUrl: last.paymentUrl,
    });
  }
  if (last.type === 'ProviderAnswered' && last.outcome.status !== 'PENDING')
    return execute({ type: 'RecordProviderOutcome', at: now, outcome: last.outcome });
  switch (trigger.type) {
    case 'Opened':
      return opened(last, collection, now, context.policy);
    case 'ConfirmRequested':
      return confirmRequested(last, collection, now, context.policy);
    case 'ProviderCalledBack':
      return calledBack(trigger.referenceHint, last, collection, context);
    case 'TimerDue':
      if (trigger.kind === 'confirmation') return confirmationDue(last, collection, expiryAt(trigger.dueAt, now));
      if (trigger.kind === 'provider') return providerDue(last, collection, expiryAt(trigger.dueAt, now), context);
      return statusDue(last, collection, now, context);
  }
}

/**
 * A collection that needs no confirmation is confirmed implicitly and goes to the provider at once (after its PRN
 * verdict, for collect-for-payment).
 */
function opened(last: CollectionStep, collection: Collection, now: string, policy: CollectionPolicy): CollectionOutput {
  if (last.type === 'Triggered') {
    return collection.phase === 'AWAITING_CONFIRMATION' && !collection.initiated.requireConfirmation
      ? confirm(collection, now, true, policy)
      : DONE;
  }
  // An unreachable provider leaves the collection PENDING: its status timer asks again.
  return last.type === 'ProviderUnreachable' ? DONE : afterConfirm(last, collection);
}

function confirmRequested(
  last: CollectionStep,
  collection: Collection,
  now: string,
  policy: CollectionPolicy,
): CollectionOutput {
  if (last.type === 'Triggered') return confirm(collection, now, false, policy);
  // The confirmation came too late: the decider cancelled the collection, and the merchant hears why.
  if (last.type === 'Executed' && last.command === 'Confirm' && collection.phase === 'FINAL') {
    return {
      type: 'Reject',
      code: 'not_awaiting_confirmation',
      message: `transaction ${collection.initiated.internalReference} is ${collection.status} and cannot be confirmed`,
    };
  }
  // The merchant confirms again to retry: the confirmation is recorded, the request is still owed.
  if (last.type === 'ProviderUnreachable') {
    return {
      type: 'Reject',
      code: 'provider_unavailable',
      message: 'the payment provider could not be reached; confirm again to retry',
      details: { internal_reference: collection.initiated.internalReference },
    };
  }
  return afterConfirm(last, collection);
}

/**
 * After a Confirm the prompt or checkout is asked for, once per confirmation (a confirm while the request is still owed
 * asks again).
 */
function afterConfirm(last: CollectionStep, collection: Collection): CollectionOutput {
  if (last.type === 'Executed' && last.command === 'Confirm' && collection.phase === 'AWAITING_PROVIDER')
    return requestProvider(collection);
  return DONE;
}

/**
 * A callback only says when to ask: the provider's status API gives the answer, so a forged callback changes nothing.
 */
function calledBack(
  referenceHint: string | undefined,
  last: CollectionStep,
  collection: Collection,
  context: CollectionProcessContext,
): CollectionOutput {
  if (last.type === 'ProviderUnreachable') return { type: 'Fail', error: last.error };
  // Only a collection that went to the provider and is not final has anything to learn.
  if (last.type !== 'Triggered' || !isWithProvider(collection)) return DONE;
  const reference = providerReference(collection, context) ?? referenceHint;
  return reference ? query(collection, reference) : DONE;
}

function confirmationDue(last: CollectionStep, collection: Collection, at: string): CollectionOutput {
  if (last.type === 'Triggered' && collection.phase !== 'FINAL')
    return execute({ type: 'Expire', at, timer: 'confirmation' });
  return DONE;
}

/** The provider's deadline: one last question for a result whose callback never came, then the collection expires. */
function providerDue(
  last: CollectionStep,
  collection: Collection,
  at: string,
  context: CollectionProcessContext,
): CollectionOutput {
  const expire = execute({ type: 'Expire', at, timer: 'provider' });
  if (collection.phase === 'FINAL') return DONE;
  switch (last.type) {
    case 'Triggered': {
      const reference = providerReference(collection, context);
      return reference ? query(collection, reference) : expire;
    }
    case 'Executed':
      return last.command === 'Expire' ? DONE : expire;
    default:
      // No answer, or PENDING: the deadline stands.
      return expire;
  }
}

/**
 * Polling: a provider request still owed is made again, a result not yet called back is asked for; until the collection
 * is final.
 */
function statusDue(
  last: CollectionStep,
  collection: Collection,
  now: string,
  context: CollectionProcessContext,
): CollectionOutput {
  if (collection.phase === 'FINAL') return DONE;
  if (last.type === 'ProviderUnreachable') return { type: 'Fail', error: last.error };
  if (last.type === 'Triggered') {
    if (collection.phase === 'AWAITING_PROVIDER') return requestProvider(collection);
    const reference = collection.phase === 'WITH_PROVIDER' ? providerReference(collection, context) : undefined;
    if (reference) return query(collection, reference);
  }
  return { type: 'RetryAt', at: later(now, context.policy.statusPollMs) };
}

/** The prompt (mobile money) or the checkout (card) has its own time-out, counted from the confirmation. */
function confirm(collection: Collection, now: string, implicit: boolean, policy: CollectionPolicy): CollectionOutput {
  const timeoutMs =
    collection.initiated.transactionMethod === 'CARD' ? policy.checkoutTimeoutMs : policy.promptTimeoutMs;
  return execute({ type: 'Confirm', at: now, implicit, providerExpiresAt: later(now, timeoutMs) });
}

function requestProvider(collection: Collection): CollectionOutput {
  const data = collection.initiated;
  if (!collection.providerExpiresAt)
    throw new Error(`collection ${data.internalReference} is with the provider without a deadline`);
  return {
    type: 'Call',
    call: {
      type: 'RequestProvider',
      request: {
        providerCode: data.providerCode,
        reference: data.internalReference,
        amount: String(toMajorUnits(data.transactionAmount, data.currency)),
        currency: data.currency,
        msisdn: data.msisdn,
        description: data.description,
        payerMessage: (data.description || `Payment ${data.merchantReference}`).slice(0, 160),
        payeeNote: data.merchantReference.slice(0, 160),
        expiresAt: collection.providerExpiresAt,
      },
    },
  };
}

const query = (collection: Collection, reference: string): CollectionOutput => ({
  type: 'Call',
  call: { type: 'QueryProvider', providerCode: collection.initiated.providerCode, reference },
});

const isWithProvider = (collection: Collection) =>
  collection.phase === 'AWAITING_PROVIDER' || collection.phase === 'WITH_PROVIDER';

/**
 * The reference the provider knows the collection by: the one it answered with, or, once the
 * collection went to the provider, the one our reference fixes where the protocol has one.
 */
function providerReference(
  collection: Collection,
  { providerReferenceFor }: CollectionProcessContext,
): string | undefined {
  if (collection.providerReference) return collection.providerReference;
  return isWithProvider(collection)
    ? providerReferenceFor(collection.initiated.providerCode, collection.initiated.internalReference)
    : undefined;
}

/** A time-out acts at its due time at the earliest, however early the timer fires. */
const expiryAt = (dueAt: string, now: string) => (Date.parse(now) > Date.parse(dueAt) ? now : dueAt);

/**
 * A new collection's first append, one command at a time (DeciderTransaction.start): the
 * Initiate, then what the process decides before any provider call (the implicit confirmation).
 * `last()` is where the run goes on from once the stream is written.
 */
export function collectionStart(process: CollectionProcess, initiate: CollectionCommand, now: string) {
  let last: CollectionStep = { type: 'Triggered' };
  return {
    next(collection: CollectionState): CollectionCommand | undefined {
      if (!collection) return initiate;
      const [output] = process.decide(last, { trigger: { type: 'Opened' }, collection, now });
      if (output?.type !== 'Execute') return undefined;
      last = { type: 'Executed', command: output.command.type };
      return output.command;
    },
    last: () => last,
  };
}
