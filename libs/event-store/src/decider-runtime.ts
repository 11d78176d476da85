import { storedEvent, type DomainEvent, type StreamDecider } from '@paygate/decider';
import { currentLogContext, joinFlow, type TraceMetadata } from '@paygate/logging';
import { WrongExpectedRevisionError, type EventStore, type EventToAppend, type RecordedEvent } from './event-store';

export interface LoadedStream<Event, State> {
  state: State;
  /** The decider's own events, in order (published integration events left out). */
  events: Event[];
  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  revision: number;
  /** The flow the stream belongs to: the correlation id its first event carries. */
  correlationId?: string;
}

export interface Handled<Event, State> {
  /** State after the command; unchanged when it decided nothing. */
  state: State;
  /** Events this command appended (none when it decided nothing). */
  events: Event[];
}

export interface RuntimeOptions {
  /** Appends tried before a conflicting writer's error is passed on. */
  maxAttempts?: number;
  /**
   * Each stream is one flow (a collection, a service payment): commands on it, from any request
   * or timer, append and log under the correlation id of the stream's first event. Not for
   * streams many flows write to (a wallet), whose events take the correlation of the work at hand.
   */
  oneFlowPerStream?: boolean;
}

/** A command, or a function of the state that makes one (re-run after a conflict). */
export type CommandFor<Command, State> = Command | ((state: State) => Command);

/**
 * The one command loop of every event-sourced service: load the stream, decide, append with the
 * expected revision, and on a concurrent write reload and decide again (bounded). Events the
 * decider publishes for other contexts are written in the same append, so they exist exactly
 * when their cause does: the stream is the outbox.
 */
export class DeciderRuntime<Command, Event extends DomainEvent, State> {
  private readonly maxAttempts: number;
  private readonly oneFlowPerStream: boolean;

  constructor(
    private readonly store: EventStore,
    private readonly decider: StreamDecider<Command, Event, State>,
    options: RuntimeOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.oneFlowPerStream = options.oneFlowPerStream ?? false;
  }

  async load(id: string): Promise<LoadedStream<Event, State>> {
    const recorded = await this.store.readStream(this.decider.streamName(id));
    const events = this.ownEvents(recorded);
    const correlationId = recorded[0]?.metadata.correlationId;
    return {
      state: events.reduce(this.decider.evolve, this.decider.initialState),
      events,
      revision: recorded.length === 0 ? -1 : recorded[recorded.length - 1].revision,
      correlationId: typeof correlationId === 'string' ? correlationId : undefined,
    };
  }

  /**
   * Decides `command` against the latest state and appends the result. With `expectNew` the
   * stream is taken not to exist yet (a fresh id), which saves the read; if it does exist after
   * all, the normal loop runs.
   */
  async handle(id: string, command: CommandFor<Command, State>, options: { expectNew?: boolean } = {}): Promise<Handled<Event, State>> {
    const commandFor = (state: State): Command => (typeof command === 'function' ? (command as (state: State) => Command)(state) : command);
    if (options.expectNew) {
      const state = this.decider.initialState;
      const events = this.decider.decide(commandFor(state), state);
      try {
        return await this.append(id, state, events, -1, undefined);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.load(id);
      const { state, revision } = loaded;
      const correlationId = this.oneFlowPerStream ? loaded.correlationId : undefined;
      // The rest of this work logs the flow the stream belongs to.
      if (correlationId) joinFlow(correlationId);
      const events = this.decider.decide(commandFor(state), state);
      try {
        return await this.append(id, state, events, revision, correlationId);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= this.maxAttempts) throw error;
      }
    }
  }

  private async append(id: string, before: State, events: Event[], revision: number, streamCorrelationId: string | undefined): Promise<Handled<Event, State>> {
    if (events.length === 0) return { state: before, events };
    const after = events.reduce(this.decider.evolve, before);
    const trace = traceMetadata(streamCorrelationId);
    const toAppend: EventToAppend[] = events.map((event) => ({
      type: event.type,
      data: { ...event.data },
      metadata: { schemaVersion: this.decider.schemaVersion, ...trace },
    }));
    for (const published of this.decider.publish?.(events, after) ?? []) {
      toAppend.push({ type: published.type, data: { ...published.data }, metadata: { schemaVersion: published.version, ...trace } });
    }
    await this.store.appendToStream(this.decider.streamName(id), toAppend, { expectedRevision: revision === -1 ? 'no_stream' : revision });
    return { state: after, events };
  }

  private ownEvents(recorded: RecordedEvent[]): Event[] {
    const events: Event[] = [];
    for (const stored of recorded) {
      const event = this.decider.read(storedEvent(stored));
      if (event) events.push(event);
    }
    return events;
  }
}

/**
 * The ids events carry so their consumers, in any process, log the same flow: the request that
 * caused them, and the stream's flow (a new stream starts the one of the work creating it).
 */
function traceMetadata(streamCorrelationId: string | undefined): TraceMetadata {
  const context = currentLogContext();
  const trace: TraceMetadata = {};
  if (context?.requestId) trace.requestId = context.requestId;
  const correlationId = streamCorrelationId ?? context?.correlationId;
  if (correlationId) trace.correlationId = correlationId;
  return trace;
}
