/**
 * Shared setup of the collection process specs (collection-process.*.spec.ts), which read
 * given (events) / when (trigger, provider script) / then (outputs, the collection after): a
 * policy, a provider protocol whose reference our reference fixes (MoMo) and one where it does
 * not (card), and a driver that runs the process with libs/decider's runProcess, as the service
 * does, against the collection folded from the given events, a scripted provider, and the
 * decider (schema-checked, collection-test-setup.ts) executing its commands.
 */
import { fold, type ProcessOutput } from '@paygate/decider';
import { recordRun } from '@paygate/testing';
import type { TransactionMethod } from '@paygate/contracts';
import type { CollectionCommand, CollectionState, ProviderOutcome } from './collection';
import { collectionDecider } from './collection-decider';
import {
  collectionProcess,
  type CollectionCall,
  type CollectionPolicy,
  type CollectionProcessContext,
  type CollectionTrigger,
} from './collection-process';
import type { CollectionEvent } from './events';
import { decideChecked, PAYMENT_URL } from './collection-test-setup';

export { outline } from '@paygate/testing';

export const POLICY: CollectionPolicy = {
  confirmationTimeoutMs: 1_800_000,
  promptTimeoutMs: 300_000,
  checkoutTimeoutMs: 900_000,
  statusPollMs: 60_000,
  livemode: false,
};

/** How long the provider gives the customer: the card checkout's time-out or the MoMo prompt's. */
export const providerTimeoutMs = (method: TransactionMethod) =>
  method === 'CARD' ? POLICY.checkoutTimeoutMs : POLICY.promptTimeoutMs;

/** What the provider answers a request with: a card checkout session and its URL, or a MoMo reference. */
export const providerAnswer = (method: TransactionMethod) =>
  method === 'CARD' ? { providerReference: 'sess_123', paymentUrl: PAYMENT_URL } : { providerReference: 'momo-ref-1' };

/** The outline of a run that confirms, asks the provider and records its answer. */
export const CONFIRMS_AND_ASKS_THE_PROVIDER = [
  'Execute Confirm',
  'Call RequestProvider',
  'Execute RecordProviderRequest',
  'Done',
];

/** The reference MoMo derives from ours; the card protocol derives none. */
export const fixedReference = (internalReference: string) => `x-reference-${internalReference}`;

export const CONTEXT: CollectionProcessContext = {
  policy: POLICY,
  providerReferenceFor: (providerCode, internalReference) =>
    providerCode === 'mtn_momo_ug' ? fixedReference(internalReference) : undefined,
};

/**
 * What the scripted provider answers: the request, then each status query in turn; 'unreachable' fails the call. A call
 * it has no answer for fails the spec.
 */
export interface ProviderScript {
  request?: { providerReference: string; paymentUrl?: string } | 'unreachable';
  status?: Array<ProviderOutcome | 'unreachable'>;
}

export interface Run {
  outputs: ProcessOutput<CollectionCommand, CollectionCall>[];
  /** The events the run recorded. */
  events: CollectionEvent[];
  /** The collection after the run. */
  collection: CollectionState;
}

export const UNREACHABLE = new Error('the scripted provider is unreachable');

/** given(events).when(trigger, now, provider): the run from `trigger` until it ends, every step at `now`. */
export function given(history: CollectionEvent[]) {
  return {
    async when(trigger: CollectionTrigger, now: string, provider: ProviderScript = {}): Promise<Run> {
      const answers = { request: provider.request ? [provider.request] : [], status: [...(provider.status ?? [])] };
      const events: CollectionEvent[] = [];
      const { outputs, state } = await recordRun(
        collectionProcess(CONTEXT),
        { type: 'Triggered' },
        { trigger, collection: fold(collectionDecider, history), now },
        {
          async execute(command, run) {
            const decided = decideChecked(command, run.collection);
            events.push(...decided);
            return {
              state: { ...run, collection: decided.reduce(collectionDecider.evolve, run.collection) },
              input: { type: 'Executed', command: command.type },
            };
          },
          async call(call) {
            const answer = (call.type === 'RequestProvider' ? answers.request : answers.status).shift();
            if (!answer) throw new Error(`the provider has no scripted answer to ${call.type}`);
            if (answer === 'unreachable') return { type: 'ProviderUnreachable', error: UNREACHABLE };
            return 'status' in answer
              ? { type: 'ProviderAnswered', outcome: answer }
              : { type: 'ProviderAccepted', ...answer };
          },
        },
      );
      return { outputs, events, collection: state.collection };
    },
  };
}
