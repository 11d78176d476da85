/**
 * Shared setup of the collection process specs (collection-process.*.spec.ts): a policy, a
 * provider protocol whose reference our reference fixes (MoMo) and one where it does not
 * (card), and a driver that runs the process with libs/decider's runProcess, as the service
 * does, against a scripted provider, with the decider (schema-checked, collection-test-setup.ts)
 * executing its commands.
 */
import { runProcess as runOutputs, type ProcessEffects } from '@paygate/decider';
import type { CollectionCommand, CollectionState, ProviderOutcome } from './collection';
import {
  collectionProcess,
  type CollectionCall,
  type CollectionOutput,
  type CollectionPolicy,
  type CollectionProcessContext,
  type CollectionRun,
  type CollectionStep,
  type CollectionTrigger,
} from './collection-process';
import { apply } from './collection-test-setup';

export const POLICY: CollectionPolicy = { confirmationTimeoutMs: 1_800_000, promptTimeoutMs: 300_000, checkoutTimeoutMs: 900_000, statusPollMs: 60_000 };

/** The reference MoMo derives from ours; the card protocol derives none. */
export const fixedReference = (internalReference: string) => `x-reference-${internalReference}`;

export const CONTEXT: CollectionProcessContext = {
  policy: POLICY,
  providerReferenceFor: (providerCode, internalReference) => (providerCode === 'mtn_momo_ug' ? fixedReference(internalReference) : undefined),
};

/** What the scripted provider answers: the request, then each status query in turn; 'unreachable' fails the call. */
export interface ProviderScript {
  request?: { providerReference: string; paymentUrl?: string } | 'unreachable';
  status?: Array<ProviderOutcome | 'unreachable'>;
}

/** An output as the specs read it: a call by its own type (RequestProvider, QueryProvider), anything else as the process said it. */
export type RecordedOutput = CollectionCall | Exclude<CollectionOutput, { type: 'Call' }>;

export interface Run {
  actions: RecordedOutput[];
  collection: CollectionState;
}

export const UNREACHABLE = new Error('the scripted provider is unreachable');

/** Runs the process from `trigger` until it ends the run, every step at `now`. */
export async function runProcess(trigger: CollectionTrigger, start: CollectionState, now: string, provider: ProviderScript = {}): Promise<Run> {
  const answers = [...(provider.status ?? [])];
  const actions: RecordedOutput[] = [];
  const process = collectionProcess(CONTEXT);
  let collection = start;
  const recording = {
    decide(input: CollectionStep, run: CollectionRun) {
      const outputs = process.decide(input, run);
      actions.push(...outputs.map((output) => (output.type === 'Call' ? output.call : output)));
      return outputs;
    },
  };
  const effects: ProcessEffects<CollectionStep, CollectionRun, CollectionCommand, CollectionCall> = {
    execute: async (command, run) => {
      collection = apply(collection, command);
      return { state: { ...run, collection }, input: { type: 'Executed', command: command.type } };
    },
    call: async (call) => {
      const answer = call.type === 'RequestProvider' ? (provider.request ?? 'unreachable') : (answers.shift() ?? 'unreachable');
      if (answer === 'unreachable') return { type: 'ProviderUnreachable', error: UNREACHABLE };
      return 'status' in answer ? { type: 'ProviderAnswered', outcome: answer } : { type: 'ProviderAccepted', ...answer };
    },
    rejection: ({ message }) => new Error(message),
  };
  // A run that ends refused or failed ends with an error: the outputs say how it ended.
  await runOutputs(recording, { type: 'Triggered' }, { trigger, collection, now }, effects).catch(() => undefined);
  return { actions, collection };
}

/** The outputs of a run by type, and for Execute the command's type: the run's outline. */
export const outline = (run: Run) => run.actions.map((action) => (action.type === 'Execute' ? `Execute ${action.command.type}` : action.type));
