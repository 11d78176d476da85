import type { DomainEvent, StreamDecider } from '@paygate/decider';
import { WrongExpectedRevisionError, type EventStore, type EventToAppend, type RecordedEvent } from './event-store';

export interface LoadedStream<Event, State> {
  state: State;
  /** The decider's own events, in order (published integration events left out). */
  events: Event[];
  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  revision: number;
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

  constructor(
    private readonly store: EventStore,
    private readonly decider: StreamDecider<Command, Event, State>,
    options: RuntimeOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  async load(id: string): Promise<LoadedStream<Event, State>> {
    const recorded = await this.store.readStream(this.decider.streamName(id));
    const events = this.ownEvents(recorded);
    return { state: events.reduce(this.decider.evolve, this.decider.initialState), events, revision: recorded.length === 0 ? -1 : recorded[recorded.length - 1].revision };
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
        return await this.append(id, state, events, -1);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(id);
      const events = this.decider.decide(commandFor(state), state);
      try {
        return await this.append(id, state, events, revision);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= this.maxAttempts) throw error;
      }
    }
  }

  private async append(id: string, before: State, events: Event[], revision: number): Promise<Handled<Event, State>> {
    if (events.length === 0) return { state: before, events };
    const after = events.reduce(this.decider.evolve, before);
    const toAppend: EventToAppend[] = events.map((event) => ({
      type: event.type,
      data: { ...event.data },
      metadata: { schemaVersion: this.decider.schemaVersion },
    }));
    for (const published of this.decider.publish?.(events, after) ?? []) {
      toAppend.push({ type: published.type, data: { ...published.data }, metadata: { schemaVersion: published.version } });
    }
    await this.store.appendToStream(this.decider.streamName(id), toAppend, { expectedRevision: revision === -1 ? 'no_stream' : revision });
    return { state: after, events };
  }

  private ownEvents(recorded: RecordedEvent[]): Event[] {
    const events: Event[] = [];
    for (const { type, data, metadata } of recorded) {
      const event = this.decider.read({ type, data, schemaVersion: typeof metadata.schemaVersion === 'number' ? metadata.schemaVersion : 1 });
      if (event) events.push(event);
    }
    return events;
  }
}
