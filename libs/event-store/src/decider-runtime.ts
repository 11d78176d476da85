import { storedEvent, type DomainEvent, type StreamDecider } from '@paygate/decider';
import { currentLogContext, joinFlow, type TraceMetadata } from '@paygate/logging';
import type { SqlClient } from '@paygate/sql';
import { currentTraceparent, linkToTrace } from '@paygate/tracing';
import {
  WrongExpectedRevisionError,
  type EventStore,
  type EventStoreTransaction,
  type EventToAppend,
  type RecordedEvent,
} from './event-store';

/** A stream as a load or a command left it: what the next command can be decided against without reading it again. */
export interface StreamAt<State> {
  state: State;
  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  revision: number;
  /** The flow the stream belongs to: the correlation id its first event carries. */
  correlationId?: string;
  /** The span that started the stream (its first event's traceparent), which later work on it links to. */
  traceparent?: string;
}

export interface LoadedStream<Event, State> extends StreamAt<State> {
  /** The decider's own events, in order (published integration events left out). */
  events: Event[];
}

export interface Handled<Event, State> extends StreamAt<State> {
  /** State after the command (unchanged when it decided nothing), at the revision it left. */
  state: State;
  /** Events this command appended (none when it decided nothing). */
  events: Event[];
}

/** Waits between retries after a conflict: random, up to 2 ms doubling per attempt, at most 100 ms. */
const CONFLICT_WAIT_MS = 1;
const MAX_CONFLICT_WAIT_MS = 100;

export interface RuntimeOptions {
  /** Appends tried before a conflicting writer's error is passed on. */
  maxAttempts?: number;
  /**
   * Each stream is one flow (a collection, a service payment): commands on it, from any request
   * or timer, append and log under the correlation id of the stream's first event. Not for
   * streams many flows write to (a wallet), whose events take the correlation of the work at hand.
   */
  oneFlowPerStream?: boolean;
  /**
   * Streams whose latest state this runtime keeps (least recently used dropped first), so a
   * command reads only the events appended since: for streams that grow for ever (a wallet, one
   * per merchant and currency), which would otherwise be read whole on every command. Other
   * writers are caught up with by that read, and a conflict reads again. Default 0: none kept.
   */
  cachedStreams?: number;
  /**
   * Commands on one stream from this process run one after another, for streams many requests write at once (a
   * wallet, a merchant's payouts of a day): each would otherwise conflict with the others and retry, and at a few
   * hundred in flight run out of attempts. Writers in other processes still conflict and retry.
   */
  oneCommandAtATime?: boolean;
}

/** One transaction of the store's SQL database (DeciderRuntime.transaction). */
export interface DeciderTransaction<Command, Event, State> {
  /** Rows written through it commit with the streams started here. */
  sql: SqlClient;
  /**
   * Starts stream `id` with the events of `next(state)`, asked again with the state each command
   * leaves until it answers undefined, all in one append; WrongExpectedRevisionError when the
   * stream exists. No read: the stream is new.
   */
  start(id: string, next: (state: State) => Command | undefined): Promise<Handled<Event, State>>;
}

/** A new stream and what it depends on (DeciderRuntime.startClaimed). */
export interface StreamOpening<Claim, Command, State> {
  /** Writes the claim: through `sql` when the stream is started in the same transaction, on its own otherwise. */
  claim(sql: SqlClient | undefined): Promise<Claim>;
  /** Whether the claim was made now (not by an earlier request). */
  isNew(claim: Claim): boolean;
  /** The claim's stream and the commands it starts with (DeciderTransaction.start). */
  stream(claim: Claim): { id: string; next: (state: State) => Command | undefined };
  /** Gives the claim up after its stream could not be written (KurrentDB only). */
  release(claim: Claim): Promise<void>;
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
  private readonly cachedStreams: number;
  private readonly oneCommandAtATime: boolean;
  private readonly latestStates = new Map<string, StreamAt<State>>();
  /** Per stream, the end of the commands queued on it (oneCommandAtATime). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: EventStore,
    private readonly decider: StreamDecider<Command, Event, State>,
    options: RuntimeOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 10;
    this.oneFlowPerStream = options.oneFlowPerStream ?? false;
    this.cachedStreams = options.cachedStreams ?? 0;
    this.oneCommandAtATime = options.oneCommandAtATime ?? false;
  }

  /**
   * Runs `work` in one transaction of the event store's SQL database: the rows it writes through
   * `tx.sql` and the streams it starts are committed together or not at all. Throws where the
   * store has no such transaction (KurrentDB): startClaimed works on either.
   */
  async transaction<T>(work: (tx: DeciderTransaction<Command, Event, State>) => Promise<T>): Promise<T> {
    if (!this.store.transaction)
      throw new Error('this event store has no SQL transaction (KurrentDB): write in two steps');
    return this.store.transaction((tx: EventStoreTransaction) =>
      work({
        sql: tx.sql,
        start: (id, next) =>
          this.start(id, next, (streamName, toAppend, options) => tx.appendToStream(streamName, toAppend, options)),
      }),
    );
  }

  /**
   * Claims what a new stream depends on (a reserved reference) and starts the stream the claim
   * names: in one transaction where the store keeps its events in SQL, so neither exists without
   * the other; on KurrentDB the claim first, then the stream, the claim released when the stream
   * cannot be written. A claim made before gets its stream as it is, started now if its first
   * writer died between KurrentDB's two writes (or another writer starts it: then it is loaded).
   */
  async startClaimed<Claim>(
    opening: StreamOpening<Claim, Command, State>,
  ): Promise<{ claim: Claim; stream: StreamAt<State>; started: boolean }> {
    let claim: Claim;
    let started: Handled<Event, State> | undefined;
    if (this.store.transaction) {
      ({ claim, started } = await this.transaction(async (tx) => {
        const claim = await opening.claim(tx.sql);
        const stream = opening.stream(claim);
        return { claim, started: opening.isNew(claim) ? await tx.start(stream.id, stream.next) : undefined };
      }));
    } else {
      claim = await opening.claim(undefined);
      if (opening.isNew(claim))
        started = await this.startNew(opening.stream(claim)).catch(async (error: unknown) => {
          if (error instanceof WrongExpectedRevisionError) return undefined;
          await opening.release(claim).catch(() => undefined);
          throw error;
        });
    }
    if (started) return { claim, stream: this.remember(opening.stream(claim).id, started), started: true };
    const stream = opening.stream(claim);
    const loaded = await this.load(stream.id);
    if (loaded.revision >= 0) return { claim, stream: loaded, started: false };
    try {
      return { claim, stream: await this.startNew(stream), started: true };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      return { claim, stream: await this.load(stream.id), started: false };
    }
  }

  private startNew({
    id,
    next,
  }: {
    id: string;
    next: (state: State) => Command | undefined;
  }): Promise<Handled<Event, State>> {
    return this.start(id, next);
  }

  /** A new stream with the events of every command `next` names, in one append; no read, the stream is new. */
  private start(
    id: string,
    next: (state: State) => Command | undefined,
    appendToStream?: EventStore['appendToStream'],
  ): Promise<Handled<Event, State>> {
    let state = this.decider.initialState;
    const events: Event[] = [];
    for (let command = next(state); command !== undefined; command = next(state)) {
      const decided = this.decider.decide(command, state);
      events.push(...decided);
      state = decided.reduce(this.decider.evolve, state);
    }
    return this.append(id, { state: this.decider.initialState, revision: -1 }, events, undefined, appendToStream);
  }

  async load(id: string): Promise<LoadedStream<Event, State>> {
    const recorded = await this.store.readStream(this.decider.streamName(id));
    const events = this.ownEvents(recorded);
    const { correlationId, traceparent } = recorded[0]?.metadata ?? {};
    const flow = {
      correlationId: typeof correlationId === 'string' ? correlationId : undefined,
      traceparent: typeof traceparent === 'string' ? traceparent : undefined,
    };
    // Work on a one-flow stream logs its flow even when it decides nothing (a callback for a finished collection).
    this.joinStreamFlow(flow);
    return {
      state: events.reduce(this.decider.evolve, this.decider.initialState),
      events,
      revision: recorded.length === 0 ? -1 : recorded[recorded.length - 1].revision,
      ...flow,
    };
  }

  /**
   * Decides `command` against the latest state and appends the result. With `expectNew` the
   * stream is taken not to exist yet (a fresh id), and with `current` to be as a load or a
   * command of this process just left it: either saves the read. If the stream has moved on
   * after all, the normal loop runs.
   */
  handle(
    id: string,
    command: CommandFor<Command, State>,
    options: { expectNew?: boolean; current?: StreamAt<State> } = {},
  ): Promise<Handled<Event, State>> {
    if (!this.oneCommandAtATime) return this.handleNow(id, command, options);
    const run = (this.queues.get(id) ?? Promise.resolve()).then(
      () => this.handleNow(id, command, options),
      () => this.handleNow(id, command, options),
    );
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return run;
  }

  private async handleNow(
    id: string,
    command: CommandFor<Command, State>,
    options: { expectNew?: boolean; current?: StreamAt<State> },
  ): Promise<Handled<Event, State>> {
    const commandFor = (state: State): Command =>
      typeof command === 'function' ? (command as (state: State) => Command)(state) : command;
    const known = options.expectNew ? { state: this.decider.initialState, revision: -1 } : options.current;
    if (known) {
      const correlationId = this.oneFlowPerStream ? known.correlationId : undefined;
      this.joinStreamFlow(known);
      let events: Event[] | undefined;
      try {
        events = this.decider.decide(commandFor(known.state), known.state);
      } catch {
        // Perhaps refused only because the state is behind the stream: the loop decides on the stored one.
      }
      if (events) {
        try {
          return this.remember(id, await this.append(id, known, events, correlationId));
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
        }
      }
    }
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.latest(id);
      const correlationId = this.oneFlowPerStream ? loaded.correlationId : undefined;
      // The rest of this work logs the flow the stream belongs to.
      this.joinStreamFlow(loaded);
      const events = this.decider.decide(commandFor(loaded.state), loaded.state);
      try {
        return this.remember(id, await this.append(id, loaded, events, correlationId));
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= this.maxAttempts) throw error;
      }
      // Two writers that keep meeting (instances of a service taking one stream's commands each
      // in turn) would meet again at once: a short random wait lets the loser in.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.random() * Math.min(CONFLICT_WAIT_MS * 2 ** attempt, MAX_CONFLICT_WAIT_MS)),
      );
    }
  }

  /** The stream's latest state: the one kept, caught up with the events appended since, or a whole load. */
  private async latest(id: string): Promise<StreamAt<State>> {
    const kept = this.latestStates.get(id);
    if (!kept) return this.remember(id, await this.load(id));
    const recorded = await this.store.readStream(this.decider.streamName(id), { fromRevision: kept.revision + 1 });
    if (recorded.length === 0) return this.remember(id, kept);
    return this.remember(id, {
      state: this.ownEvents(recorded).reduce(this.decider.evolve, kept.state),
      revision: recorded[recorded.length - 1].revision,
      correlationId: kept.correlationId,
      traceparent: kept.traceparent,
    });
  }

  /**
   * On a one-flow stream, the rest of this work logs the stream's flow, and its span links to the
   * trace that started the stream (a timer or a provider's callback finds the payment's trace).
   */
  private joinStreamFlow(at: { correlationId?: string; traceparent?: string }): void {
    if (!this.oneFlowPerStream) return;
    if (at.correlationId) joinFlow(at.correlationId);
    linkToTrace(at.traceparent);
  }

  /** Keeps a stream's state after a read or an append (states are immutable: deciders return new ones). */
  private remember<At extends StreamAt<State>>(id: string, at: At): At {
    if (this.cachedStreams === 0 || at.revision === -1) return at;
    this.latestStates.delete(id);
    this.latestStates.set(id, {
      state: at.state,
      revision: at.revision,
      correlationId: at.correlationId,
      traceparent: at.traceparent,
    });
    if (this.latestStates.size > this.cachedStreams)
      this.latestStates.delete(this.latestStates.keys().next().value as string);
    return at;
  }

  private async append(
    id: string,
    at: StreamAt<State>,
    events: Event[],
    streamCorrelationId: string | undefined,
    appendToStream: EventStore['appendToStream'] = (streamName, toAppend, options) =>
      this.store.appendToStream(streamName, toAppend, options),
  ): Promise<Handled<Event, State>> {
    if (events.length === 0)
      return {
        state: at.state,
        events,
        revision: at.revision,
        correlationId: at.correlationId,
        traceparent: at.traceparent,
      };
    const after = events.reduce(this.decider.evolve, at.state);
    const trace = traceMetadata(streamCorrelationId);
    const toAppend: EventToAppend[] = events.map((event) => ({
      type: event.type,
      data: { ...event.data },
      metadata: { schemaVersion: this.decider.schemaVersion, ...trace },
    }));
    for (const published of this.decider.publish?.(events, after) ?? []) {
      toAppend.push({
        type: published.type,
        data: { ...published.data },
        metadata: { schemaVersion: published.version, ...trace },
      });
    }
    const written = await appendToStream(this.decider.streamName(id), toAppend, {
      expectedRevision: at.revision === -1 ? 'no_stream' : at.revision,
    });
    return {
      state: after,
      events,
      revision: written.nextExpectedRevision,
      correlationId: at.revision === -1 ? trace.correlationId : at.correlationId,
      traceparent: at.revision === -1 ? trace.traceparent : at.traceparent,
    };
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
 * caused them, and the stream's flow (a new stream starts the one of the work creating it); and
 * the span that stored them, so their consumers' spans join its trace.
 */
function traceMetadata(streamCorrelationId: string | undefined): TraceMetadata {
  const context = currentLogContext();
  const trace: TraceMetadata = {};
  if (context?.requestId) trace.requestId = context.requestId;
  const correlationId = streamCorrelationId ?? context?.correlationId;
  if (correlationId) trace.correlationId = correlationId;
  const traceparent = currentTraceparent();
  if (traceparent) trace.traceparent = traceparent;
  return trace;
}
