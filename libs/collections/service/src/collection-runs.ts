import type {
  CollectionCall,
  CollectionCommand,
  CollectionEvent,
  CollectionProcess,
  CollectionRun,
  CollectionState,
  CollectionStep,
  CollectionTrigger,
} from '@paygate/collections-domain';
import { CommandRejectedError, type RejectionCode } from '@paygate/contracts';
import { runProcess, type ProcessEffects, type RunEnd } from '@paygate/decider';
import type { DeciderRuntime, Handled, StreamAt } from '@paygate/event-store';

export type CollectionRuntime = DeciderRuntime<CollectionCommand, CollectionEvent, CollectionState>;

export interface CollectionRunsDeps {
  collections: CollectionRuntime;
  process: CollectionProcess;
  /** Carries out a provider call (provider-calls.ts). */
  call: (call: CollectionCall, internalReference: string) => Promise<CollectionStep>;
  /** Told of every state a command changed (finished-collections.ts). */
  changed: (state: CollectionState) => void;
  now: () => Date;
}

/** Runs of the collection process on a collection's stream, with libs/decider's runProcess. */
export class CollectionRuns {
  constructor(private readonly deps: CollectionRunsDeps) {}

  /** One run; each command is decided against the stream as the last one left it, with no read in between. */
  async run(
    trigger: CollectionTrigger,
    internalReference: string,
    start: StreamAt<CollectionState>,
    first: CollectionStep = { type: 'Triggered' },
  ): Promise<{ collection: CollectionState; end: RunEnd }> {
    let stream = start;
    const runState = (): CollectionRun => ({ trigger, collection: stream.state, now: this.deps.now().toISOString() });
    const effects: ProcessEffects<CollectionStep, CollectionRun, CollectionCommand, CollectionCall> = {
      execute: async (command) => {
        stream = await this.execute(command, internalReference, stream);
        return { state: runState(), input: { type: 'Executed', command: command.type } };
      },
      call: (call) => this.deps.call(call, internalReference),
      rejection: ({ code, message, details }) => new CommandRejectedError(code as RejectionCode, message, details),
    };
    const { state, end } = await runProcess(this.deps.process, first, runState(), effects);
    return { collection: state.collection, end };
  }

  async execute(
    command: CollectionCommand,
    internalReference: string,
    current?: StreamAt<CollectionState>,
  ): Promise<Handled<CollectionEvent, CollectionState>> {
    const handled = await this.deps.collections.handle(internalReference, command, { current });
    if (handled.events.length > 0) this.deps.changed(handled.state);
    return handled;
  }
}
