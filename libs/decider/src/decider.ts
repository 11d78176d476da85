/**
 * An event-sourced aggregate as plain functions: `decide` turns a command and the current state
 * into new events (or throws a rejection), `evolve` folds one event into state, and
 * `initialState` is the state of a stream with no events. Deciders are pure, so every rule is
 * unit-tested without a store, a broker or NestJS; libs/event-store runs them against streams.
 */
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  readonly initialState: State;
}

/** The shape every domain event has in a stream. */
export interface DomainEvent {
  type: string;
  data: object;
}

/** An event published for other contexts, appended in the same write as the events that caused it. */
export interface PublishedEvent {
  type: string;
  /** The integration contract's version (libs/contracts); consumers read it. */
  version: number;
  data: object;
}

/** An event as read back from a stream, before the domain has recognised it. */
export interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
  schemaVersion: number;
}

/**
 * A decider bound to its streams: how an entity's id names its stream, the schema version its
 * events are written with, how it reads stored events back (its own types, at every version it
 * ever wrote, upcast to today's shape; anything else, such as published integration events in
 * the same stream, is not its event), and what it publishes for other contexts.
 */
export interface StreamDecider<Command, Event extends DomainEvent, State> extends Decider<Command, Event, State> {
  streamName(id: string): string;
  readonly schemaVersion: number;
  /** The domain event `stored` is, or undefined when it is not one of the decider's. */
  read(stored: StoredEvent): Event | undefined;
  /** Integration events caused by `events`, given the state after them; none by default. */
  publish?(events: Event[], after: State): PublishedEvent[];
}

export function fold<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  events: readonly Event[],
  from: State = decider.initialState,
): State {
  return events.reduce(decider.evolve, from);
}
