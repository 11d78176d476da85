/**
 * Shared setup of the collection process specs (collection-process.*.spec.ts): a policy, a
 * provider protocol whose reference our reference fixes (MoMo) and one where it does not
 * (card), and a driver that runs the process as the service does, against a scripted provider,
 * with the decider (schema-checked, collection-test-setup.ts) executing its commands.
 */
import type { CollectionState, ProviderOutcome } from './collection';
import {
  nextAction,
  type CollectionAction,
  type CollectionPolicy,
  type CollectionProcessContext,
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

export interface Run {
  actions: CollectionAction[];
  collection: CollectionState;
}

/** Runs the process from `trigger` until it ends the run, every step at `now`. */
export function runProcess(trigger: CollectionTrigger, start: CollectionState, now: string, provider: ProviderScript = {}): Run {
  const answers = [...(provider.status ?? [])];
  const actions: CollectionAction[] = [];
  let collection = start;
  let last: CollectionStep = { type: 'Triggered' };
  while (actions.length < 10) {
    const action = nextAction({ trigger, last, collection, now }, CONTEXT);
    actions.push(action);
    switch (action.type) {
      case 'Execute':
        collection = apply(collection, action.command);
        last = { type: 'Executed', command: action.command.type };
        break;
      case 'RequestProvider': {
        const answer = provider.request ?? 'unreachable';
        last = answer === 'unreachable' ? { type: 'ProviderUnreachable' } : { type: 'ProviderAccepted', ...answer };
        break;
      }
      case 'QueryProvider': {
        const answer = answers.shift() ?? 'unreachable';
        last = answer === 'unreachable' ? { type: 'ProviderUnreachable' } : { type: 'ProviderAnswered', outcome: answer };
        break;
      }
      default:
        return { actions, collection };
    }
  }
  throw new Error(`the run did not end: ${JSON.stringify(actions.map((action) => action.type))}`);
}

/** The actions of a run by type, and for Execute the command's type: the run's outline. */
export const outline = (run: Run) => run.actions.map((action) => (action.type === 'Execute' ? `Execute ${action.command.type}` : action.type));
