import {
  acknowledgedState,
  collectForPaymentAcknowledgement,
  collectionProcess,
  collectionStart,
  confirmAcknowledgement,
  initializeAcknowledgement,
  planOpening,
  type Collection,
  type CollectionProcess,
  type CollectionStep,
  type CollectionTimerKind,
  type CollectionTrigger,
} from '@paygate/collections-domain';
import {
  CommandRejectedError,
  type Acknowledgement,
  type ConfirmCollectionCommand,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import type { Metrics } from '@paygate/metrics';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import type { CollectionsConfig } from './config';
import { CollectionQueries, type CollectionQueriesDeps } from './collection-queries';
import { CollectionRuns } from './collection-runs';
import { finishedCollections } from './finished-collections';
import { providerCalls, type ProviderCallsDeps } from './provider-calls';

export type { CollectionRuntime } from './collection-runs';

export interface CollectionsServiceDeps extends ProviderCallsDeps, CollectionQueriesDeps {
  config: CollectionsConfig;
  metrics: Metrics;
  now?: () => Date;
}

const TRIGGERED: CollectionStep = { type: 'Triggered' };
type Opened = { collection: Collection; fresh: boolean };
const notFound = () => new CommandRejectedError('not_found', 'transaction not found');

/**
 * The collections service's commands: each opens or loads a collection and runs the collection
 * process (@paygate/collections-domain) on it with libs/decider's runProcess, connecting the
 * process to the stream, the reference registry and the providers' connectors (provider-calls.ts).
 */
export class CollectionsService {
  private readonly now: () => Date;
  private readonly process: CollectionProcess;
  private readonly runs: CollectionRuns;
  /** The read side (collection-queries.ts), which the query handlers use. */
  readonly queries: CollectionQueries;

  constructor(private readonly deps: CollectionsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    const providerReferenceFor = (code: string, ref: string) => deps.collectors(code).providerReferenceFor?.(ref);
    this.process = collectionProcess({ policy: deps.config, providerReferenceFor });
    const changed = finishedCollections(deps.metrics, deps.log);
    this.runs = new CollectionRuns({
      ...deps,
      process: this.process,
      call: providerCalls(deps),
      changed,
      now: this.now,
    });
    this.queries = new CollectionQueries(deps);
  }

  /** A retry gets the acknowledgement the first request got, whatever happened since. */
  async initialize(command: InitializeCollectionCommand): Promise<Acknowledgement> {
    const { collection, fresh } = await this.open(command);
    const first = fresh ? null : acknowledgedState((await this.load(collection.initiated.internalReference)).events);
    return initializeAcknowledgement(first ?? collection);
  }

  /** A collection that pays a PRN: accepted now, it waits for service-payments' verdict on the PRN. */
  async collectForPayment(command: InitializeCollectionCommand): Promise<Acknowledgement> {
    return collectForPaymentAcknowledgement((await this.open(command, { prnRequired: true })).collection);
  }

  async confirm({ merchantId, internalReference }: ConfirmCollectionCommand): Promise<Acknowledgement> {
    const loaded = await this.load(internalReference);
    if (loaded.state?.initiated.merchantId !== merchantId) throw notFound();
    const { collection } = await this.runs.run({ type: 'ConfirmRequested' }, internalReference, loaded);
    return confirmAcknowledgement(collection ?? loaded.state);
  }

  /** The PRN verdict: eligible, the collection proceeds; not, it ends CANCELLED, unseen by the customer. */
  async acceptPrn(internalReference: string): Promise<void> {
    const accepted = await this.runs.execute({ type: 'AcceptPrn', at: this.now().toISOString() }, internalReference);
    await this.runs.run({ type: 'Opened' }, internalReference, accepted);
  }

  async rejectPrn(internalReference: string, reason: string): Promise<void> {
    await this.runs.execute({ type: 'RejectPrn', at: this.now().toISOString(), reason }, internalReference);
  }

  /** A provider says something changed: the process asks its status API, which a forged callback cannot answer. */
  async refreshFromProvider(internalReference: string, referenceHint?: string): Promise<void> {
    const loaded = await this.load(internalReference);
    await this.runs.run({ type: 'ProviderCalledBack', referenceHint }, internalReference, loaded);
  }

  async fireTimer(timer: DueTimer<CollectionTimerKind>): Promise<TimerVerdict> {
    const trigger: CollectionTrigger = { type: 'TimerDue', kind: timer.kind, dueAt: timer.dueAt.toISOString() };
    const { end } = await this.runs.run(trigger, timer.internalReference, await this.load(timer.internalReference));
    return end.type === 'Done' ? { done: true } : { done: false, retryAt: new Date(end.at) };
  }

  /**
   * Reserves the merchant reference and starts the collection with the commands that need no
   * provider (the implicit confirmation), then runs the process on it. A retry of the same
   * request finds the collection, or only the reservation when the first attempt died between
   * KurrentDB's two writes, and starts it then.
   */
  private async open(command: InitializeCollectionCommand, rules = {}): Promise<Opened> {
    const now = this.now().toISOString();
    const { merchantReference, hash, initiate } = planOpening(command, this.deps.config, now, rules);
    let start: ReturnType<typeof collectionStart> | undefined;
    const opened = await this.deps.collections.startClaimed({
      ...this.deps.references.claim(command.merchantId, merchantReference, hash),
      stream: (reserved) => ({
        id: reserved.internalReference,
        next: (start ??= collectionStart(this.process, initiate(reserved), now)).next,
      }),
    });
    const { claim: reserved, stream } = opened;
    const from = (opened.started && start?.last()) || TRIGGERED;
    const { collection } = await this.runs.run({ type: 'Opened' }, reserved.internalReference, stream, from);
    return { collection: (collection ?? stream.state) as Collection, fresh: reserved.fresh };
  }

  private load(internalReference: string) {
    return this.deps.collections.load(internalReference);
  }
}
